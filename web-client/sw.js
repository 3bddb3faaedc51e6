// The service worker: Web Push (PROTOCOL.md, "Web Push and in-tab
// notices"). Served from the root (/sw.js) so that its scope is the whole
// site. It shows the server's pushes ("your move", "low time") as
// notifications and, on a click, focuses a tab of the site on the game (or
// opens one). It answers no fetch (the site is only ever served by the
// server); the one cache it reads holds the notices' words (push.js).

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

// The words of the notices: the page keeps them, in its language, in the
// Cache API (push.js keepPushWords); English until a page has done so.
const ENGLISH = {
  'notice.title': 'Your move', 'sw.game': 'Game #{id}', 'sw.lowtitle': 'Time is running out',
  'sw.lowbody': '{game}: {left} left for your move.', 'sw.moved': '{game}: {name} has moved.',
  'sw.yourmove': '{game}: it is your move.', 'corr.underminute': 'under a minute', 'corr.daysn': '{n} days',
};
async function words() {
  try {
    const r = await caches.match('/sw-words.json', { cacheName: 'chameleon-words' });
    if (r) return { ...ENGLISH, ...(await r.json()).words };
  } catch { /* no cache: English */ }
  return ENGLISH;
}
const fill = (s, params) => s.replace(/\{(\w+)\}/g, (m, k) => (params[k] ?? m));

function leftText(ms, w) {
  const min = Math.round(ms / 60000);
  if (min < 1) return w['corr.underminute'];
  if (min < 120) return `${min} min`;
  const h = Math.round(min / 60);
  return h < 48 ? `${h} h` : fill(w['corr.daysn'], { n: Math.round(h / 24) });
}

// The notification of a push payload {kind, game, variant, url, opponent?, ms_left?}.
function noticeOf(msg, w) {
  const game = fill(w['sw.game'], { id: msg.game });
  if (msg.kind === 'low_time') {
    return { title: w['sw.lowtitle'], body: fill(w['sw.lowbody'], { game, left: leftText(msg.ms_left || 0, w) }) };
  }
  return { title: w['notice.title'], body: msg.opponent ? fill(w['sw.moved'], { game, name: msg.opponent }) : fill(w['sw.yourmove'], { game }) };
}

self.addEventListener('push', (event) => {
  let msg = {};
  try { msg = event.data ? event.data.json() : {}; } catch { /* not JSON: a plain notice */ }
  event.waitUntil(words().then((w) => {
    const n = noticeOf(msg, w);
    return self.registration.showNotification(n.title, {
      body: n.body,
      tag: `chameleon-game-${msg.game}`,
      renotify: true,
      icon: '/favicon.svg',
      data: { url: msg.url || '/' },
    });
  }));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = new URL((event.notification.data && event.notification.data.url) || '/', self.location.origin).href;
  event.waitUntil((async () => {
    const wins = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    const tab = wins.find((w) => new URL(w.url).origin === self.location.origin);
    if (!tab) return self.clients.openWindow(url);
    await tab.focus();
    tab.postMessage({ open: url }); // notices.js goes to the game
    return null;
  })());
});
