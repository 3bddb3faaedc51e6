// Correspondence play on the client: time-control text, deadline text, the
// "your turn" list the server pushes (kept in app.yourTurn, shown as a
// badge in the header). Field names follow protocol/PROTOCOL.md
// (correspondence section); every page reads them through this module.

import { t } from './i18n.js';

export const DAY = 86400000;
export const HOUR = 3600000;
// The days per move a seek may ask for are the server's (welcome.corr_days,
// tables.js corrDays()).

// True for a seek, room or "your turn" entry of a correspondence game
// (SEEK and room carry `corr`, null for live; TURN carries `kind`).
export function isCorr(x) {
  return !!x && (!!x.corr || x.kind === 'correspondence');
}

export const daysText = (d) => t(d === 1 ? 'corr.day1' : 'corr.daysn', { n: d });

// CORR as text: "3 days/move", "2 days + 1 day/move (max 10 days)".
export function corrControl(c) {
  if (!c) return '';
  if (!c.inc_days) return t('corr.permove', { days: daysText(c.days) });
  return t('corr.inc', { days: daysText(c.days), inc: daysText(c.inc_days), cap: daysText(c.cap_days || 60) });
}

// Time left as people say it: "2 days 3 h", "5 h 12 min", "7 min",
// "under a minute", "time is up".
export function leftText(ms) {
  if (ms <= 0) return t('corr.up');
  const d = Math.floor(ms / DAY);
  const hh = Math.floor((ms % DAY) / HOUR);
  const mm = Math.floor((ms % HOUR) / 60000);
  if (d > 0) return `${daysText(d)}${hh ? ` ${hh} h` : ''}`;
  if (hh > 0) return `${hh} h${mm ? ` ${mm} min` : ''}`;
  if (mm > 0) return `${mm} min`;
  return t('corr.underminute');
}

// seek_create's `corr` (PROTOCOL.md, Correspondence): days per move, or
// increment mode: a bank of `days`, `days` added after each of your moves,
// capped at four times the bank (the protocol allows up to 60 days).
export function corrSeek(days, increment) {
  if (!increment) return { days };
  return { days, inc_days: days, cap_days: Math.min(60, 4 * days) };
}

// The "your turn" list (`turns`): asked once per connection of an account,
// then pushed by the server on every change; kept in app.yourTurn, most
// urgent first as the server sends it, shown as a badge in the header.
export function watchYourTurn(app) {
  app.yourTurn = [];
  const listeners = new Set();
  const set = (list) => {
    app.yourTurn = list || [];
    const badge = document.getElementById('turn-count');
    if (badge) {
      badge.textContent = String(app.yourTurn.length);
      badge.hidden = app.yourTurn.length === 0;
    }
    for (const fn of [...listeners]) fn(app.yourTurn);
  };
  app.conn.on('welcome', (w) => {
    if (w.account) app.conn.request('turns').catch(() => set([]));
    else set([]);
  });
  app.conn.on('turns', (m) => set(m.games));
  app.onYourTurn = (fn) => { listeners.add(fn); return () => listeners.delete(fn); };
}
