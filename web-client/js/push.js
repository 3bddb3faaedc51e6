// Web Push on this device (PROTOCOL.md, "Web Push and in-tab notices"):
// the profile's control that subscribes this browser (service worker
// /sw.js, PushManager with the server's VAPID key from GET /api/push/key)
// and gives the subscription to the server (POST /api/push/subscribe), or
// takes it back. For accounts only; hidden when the server has push off or
// the browser cannot push. Nothing is asked before the button is pressed.

import { h } from './dom.js';
import { TABLE, currentLang, t } from './i18n.js';
import { api } from './http.js';

const supported = () => 'serviceWorker' in navigator && 'PushManager' in window && typeof Notification !== 'undefined';

function keyBytes(b64url) {
  const s = atob(b64url.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

async function currentSubscription() {
  const reg = await navigator.serviceWorker.getRegistration('/');
  return reg ? reg.pushManager.getSubscription() : null;
}

export function pushSettings(app) {
  const state = h('p', { id: 'push-state', class: 'muted' });
  const on = h('button', { type: 'button', id: 'push-on', hidden: true, onclick: () => act(subscribe) }, t('push.on'));
  const off = h('button', { type: 'button', id: 'push-off', hidden: true, onclick: () => act(unsubscribe) }, t('push.off'));
  const box = h('div', { id: 'push-box' }, state, h('div', { class: 'row' }, on, off));

  async function subscribe() {
    const { key } = await api('GET', '/api/push/key');
    if ((await Notification.requestPermission()) !== 'granted') throw new Error(t('push.denied'));
    const reg = await navigator.serviceWorker.register('/sw.js');
    await navigator.serviceWorker.ready;
    const sub = (await reg.pushManager.getSubscription())
      || await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
    await api('POST', '/api/push/subscribe', sub.toJSON());
  }

  async function unsubscribe() {
    const sub = await currentSubscription();
    if (!sub) return;
    await api('POST', '/api/push/unsubscribe', { endpoint: sub.endpoint });
    await sub.unsubscribe();
  }

  async function act(fn) {
    on.disabled = off.disabled = true;
    try { await fn(); await draw(); } catch (e) { state.textContent = e.message; } finally { on.disabled = off.disabled = false; }
  }

  async function draw() {
    on.hidden = off.hidden = true;
    if (!app.account) { state.textContent = t('push.login'); return; }
    if (!supported()) { state.textContent = t('push.unsupported'); return; }
    // The welcome says whether the server sends pushes (drawn again when
    // it comes): no request for a key a server without push does not have.
    if (app.push === undefined) return;
    if (!app.push) { state.textContent = t('push.serveroff'); return; }
    const sub = await currentSubscription().catch(() => null);
    state.dataset.subscribed = sub ? 'true' : 'false';
    state.textContent = sub ? t('push.subscribed') : t('push.offer');
    on.hidden = !!sub;
    off.hidden = !sub;
  }

  const offWelcome = app.conn.on('welcome', () => { if (box.isConnected) draw(); else offWelcome(); });
  draw();
  return box;
}

// The service worker (sw.js) has no table of its own: the words of its
// notices, in the language in use, are kept where it can read them (the
// Cache API, 'chameleon-words' /sw-words.json) at each page load.
const SW_KEYS = ['notice.title', 'sw.game', 'sw.lowtitle', 'sw.lowbody', 'sw.moved', 'sw.yourmove', 'corr.underminute', 'corr.daysn'];
export function keepPushWords() {
  if (typeof caches === 'undefined' || !('serviceWorker' in navigator)) return;
  const lang = currentLang();
  const words = Object.fromEntries(SW_KEYS.map((k) => [k, TABLE[k][lang] ?? TABLE[k].en]));
  caches.open('chameleon-words')
    .then((c) => c.put('/sw-words.json', new Response(JSON.stringify({ lang, words }), { headers: { 'Content-Type': 'application/json' } })))
    .catch(() => { /* no cache here: the notices stay in English */ });
}
