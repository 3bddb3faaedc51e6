// The one WebSocket connection to the server (protocol/PROTOCOL.md).
// It says hello with the stored token on every (re)connection, numbers
// requests and matches replies by `re`, and reconnects by itself with a
// growing delay after a drop. Pages subscribe to message types with on().

const TOKEN_KEY = 'chameleon.token';
const NAME_KEY = 'chameleon.name';

export class Conn {
  constructor(url) {
    this.url = url;
    this.nextId = 1;
    this.pending = new Map();
    this.handlers = new Map();
    this.ws = null;
    this.ready = false;
    this.welcome = null;
    this.retry = 0;
    this.queue = [];
    this.pingTimer = null;
  }

  on(type, fn) {
    if (!this.handlers.has(type)) this.handlers.set(type, new Set());
    this.handlers.get(type).add(fn);
    return () => this.handlers.get(type).delete(fn);
  }

  emit(type, msg) {
    for (const fn of [...(this.handlers.get(type) || [])]) {
      try { fn(msg); } catch (e) { console.error(e); }
    }
  }

  connect() {
    let ws;
    try { ws = new WebSocket(this.url); } catch (e) { this.scheduleRetry(); return; }
    this.ws = ws;
    ws.addEventListener('open', () => {
      this.retry = 0;
      const hello = { type: 'hello', id: this.nextId++ };
      const token = localStorage.getItem(TOKEN_KEY);
      const name = localStorage.getItem(NAME_KEY);
      if (token) hello.token = token;
      if (name) hello.name = name;
      this.pending.set(hello.id, {
        resolve: (m) => {
          this.welcome = m;
          localStorage.setItem(TOKEN_KEY, m.token);
          this.ready = true;
          this.emit('state', 'online'); // 'welcome' listeners hear it next, like any message
          for (const q of this.queue.splice(0)) this.rawSend(q);
        },
        reject: (e) => console.error('hello refused', e),
      });
      ws.send(JSON.stringify(hello));
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => { if (this.ready) this.rawSend({ type: 'ping' }); }, 25000);
    });
    ws.addEventListener('message', (ev) => {
      let m;
      try { m = JSON.parse(ev.data); } catch { return; }
      if (m.re !== undefined && this.pending.has(m.re)) {
        const p = this.pending.get(m.re);
        this.pending.delete(m.re);
        if (m.type === 'error') p.reject(m); else p.resolve(m);
      }
      this.emit(m.type, m);
    });
    ws.addEventListener('close', () => {
      if (this.ws !== ws) return;
      this.ready = false;
      clearInterval(this.pingTimer);
      for (const [, p] of this.pending) p.reject({ type: 'error', code: 'disconnected' });
      this.pending.clear();
      this.emit('state', 'offline');
      this.scheduleRetry();
    });
    ws.addEventListener('error', () => { /* close follows */ });
  }

  scheduleRetry() {
    if (this.held) { this.retryWhenReleased = true; return; }
    const delay = Math.min(8000, 300 * 2 ** this.retry++) + Math.random() * 200;
    setTimeout(() => this.connect(), delay);
  }

  rawSend(obj) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(obj));
  }

  // Sends a request; resolves with the direct reply (or undefined for
  // messages that have none), rejects with the server's error message.
  request(type, fields = {}, expectReply = true) {
    const msg = { type, ...fields };
    if (!expectReply) {
      // Errors still come back with `re`; route them to 'error' listeners.
      msg.id = this.nextId++;
      const id = msg.id;
      this.pending.set(id, { resolve: () => {}, reject: (e) => this.emit('request-error', e) });
      setTimeout(() => this.pending.delete(id), 30000);
      if (this.ready) this.rawSend(msg); else this.queue.push(msg);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      msg.id = this.nextId++;
      this.pending.set(msg.id, { resolve, reject });
      if (this.ready) this.rawSend(msg); else this.queue.push(msg);
    });
  }

  // Drops the socket as if the network had failed (used by the tests of
  // reconnection and by "reconnect now").
  drop() { if (this.ws) this.ws.close(); }

  // hold(): drop the connection and stay offline until release() (tests of
  // reconnection; a "go offline" switch).
  hold() { this.held = true; this.drop(); }

  release() {
    this.held = false;
    if (this.retryWhenReleased) { this.retryWhenReleased = false; this.connect(); }
  }

  setName(name) { localStorage.setItem(NAME_KEY, name); }
}
