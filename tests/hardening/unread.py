#!/usr/bin/env python3
"""Readers that read nothing, for exports.test.mjs.

Commands on stdin, one a line: "open PORT FROM PATH" opens a connection
from the local address FROM with a 4 KB receive buffer (so that the
kernel holds little of an answer nobody reads, as over a real network),
sends GET PATH and prints the answer's status line and headers (and the
body of a refusal) as one JSON line {"id": N, "status": S, "head": "..."},
then reads nothing more;
"close N" closes connection N. Every connection closes at end of input.
"""
import json
import socket
import sys

conns = {}
last = 0
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "open":
        port, src, path = int(words[1]), words[2], words[3]
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.bind((src, 0))
        s.connect(("127.0.0.1", port))
        s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % path).encode())
        s.settimeout(15)
        head = b""
        while b"\r\n\r\n" not in head:
            d = s.recv(1)
            if not d:
                break
            head += d
        last += 1
        conns[last] = s
        text = head.decode("latin1")
        status = int(text[9:12]) if text.startswith("HTTP/1.1 ") else 0
        if status != 200:  # a refusal: its short body too
            for h in text.lower().split("\r\n"):
                if h.startswith("content-length:"):
                    want = int(h.split(":")[1])
                    body = b""
                    while len(body) < want:
                        d = s.recv(want - len(body))
                        if not d:
                            break
                        body += d
                    text += body.decode("latin1")
        print(json.dumps({"id": last, "status": status, "head": text}), flush=True)
    elif words[0] == "close":
        conns.pop(int(words[1])).close()
for s in conns.values():
    s.close()
