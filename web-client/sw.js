// The service worker: Web Push (PROTOCOL.md, "Web Push and in-tab
// notices"). Served from the root (/sw.js) so that its scope is the whole
// site. It shows the server's pushes ("your move", "low time") as
// notifications and, on a click, focuses a tab of the site on the game (or
// opens one). It keeps no cache and answers no fetch: the site is only
// ever served by the server.

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

function leftText(ms) {
  const min = Math.round(ms / 60000);
  if (min < 1) return 'under a minute';
  if (min < 120) return `${min} min`;
  const h = Math.round(min / 60);
  return h < 48 ? `${h} h` : `${Math.round(h / 24)} days`;
}

// The notification of a push payload {kind, game, variant, url, opponent?, ms_left?}.
function noticeOf(msg) {
  const game = `Game #${msg.game}`;
  if (msg.kind === 'low_time') {
    return { title: 'Time is running out', body: `${game}: ${leftText(msg.ms_left || 0)} left for your move.` };
  }
  return { title: 'Your move', body: msg.opponent ? `${game}: ${msg.opponent} has moved.` : `${game}: it is your move.` };
}

self.addEventListener('push', (event) => {
  let msg = {};
  try { msg = event.data ? event.data.json() : {}; } catch { /* not JSON: a plain notice */ }
  const n = noticeOf(msg);
  event.waitUntil(self.registration.showNotification(n.title, {
    body: n.body,
    tag: `chameleon-game-${msg.game}`,
    renotify: true,
    icon: '/favicon.svg',
    data: { url: msg.url || '/' },
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
