#!/usr/bin/python3
# A real SMTP server for the mail tests (Debian's python3-aiosmtpd): listens
# on 127.0.0.1:PORT and writes each message it accepts, as received, to
# DIR/<ns>-<n>.eml (written to a .tmp name, then renamed: a reader never sees
# half a file). Prints "ready" once it listens; stops on SIGTERM.
#   smtp_sink.py PORT DIR
import itertools
import os
import signal
import sys
import time

from aiosmtpd.controller import Controller

port, out = int(sys.argv[1]), sys.argv[2]
counter = itertools.count()


class Sink:
    async def handle_DATA(self, server, session, envelope):
        path = os.path.join(out, f'{time.time_ns()}-{next(counter)}.eml')
        with open(path + '.tmp', 'wb') as f:
            f.write(('X-Envelope-To: ' + ','.join(envelope.rcpt_tos) + '\r\n').encode())
            f.write(envelope.original_content or envelope.content)
        os.rename(path + '.tmp', path)
        return '250 OK queued'


controller = Controller(Sink(), hostname='127.0.0.1', port=port)
controller.start()
print('ready', flush=True)
signal.signal(signal.SIGTERM, lambda *a: (controller.stop(), sys.exit(0)))
while True:
    time.sleep(3600)
