import { t } from './i18n.js';

// A tiny element builder: h('button', {class: 'x', onclick: fn}, 'text', child).
export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(e.dataset, v);
    // CSSOM, not a style attribute: a strict style-src CSP allows it.
    else if (k === 'style') e.style.cssText = v;
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  return e;
}

// "5+2", "1 day/move"-style time control text from milliseconds.
export function timeControl(baseMs, incMs) {
  if (!baseMs) return t('w.noclock');
  const min = baseMs / 60000;
  const base = min >= 1 ? String(Math.round(min * 10) / 10) : `${baseMs / 1000}s`;
  return `${base}+${Math.round(incMs / 1000)}`;
}

// A player's name with a mark when it is a bot (PLAYER's `bot`, `level`:
// PROTOCOL.md, Bots): an element for lists, bars and the viewer. An
// account's name links to its player page (PLAYER's `account`); guests and
// bots have none. The link does not pass its click to a clickable row.
export function playerName(p) {
  if (!p) return h('span', { class: 'muted' }, t('w.empty'));
  const name = p.account && !p.bot
    ? h('a', { class: 'plink', href: `#/@/${encodeURIComponent(p.name)}`, onclick: (e) => e.stopPropagation() }, p.name)
    : p.name;
  return h('span', { class: p.bot ? 'pname bot' : 'pname' }, name,
    p.bot ? h('span', { class: 'tag bot', title: t('w.botlevel', { n: p.level }) }, `\u2699 ${t('w.bot')}`) : null,
    p.rating ? h('span', { class: 'rating', title: p.provisional ? t('w.provisional') : t('w.rating') },
      ` (${ratingText(p.rating, p.provisional)}`, ratingDiff(p.rating_diff), ')') : null);
}

// What a finished rated game changed (PLAYER's rating_diff): "+61" in
// green, "-12" (a minus sign) in red, "±0"; nothing before it is stored.
function ratingDiff(diff) {
  if (typeof diff !== 'number') return null;
  const text = diff > 0 ? `+${diff}` : diff < 0 ? `\u2212${-diff}` : '\u00b10';
  return h('span', { class: `rating-diff${diff > 0 ? ' up' : diff < 0 ? ' down' : ''}`, title: t('w.ratingdiff') }, ` ${text}`);
}

// A rating as shown: rounded, with '?' while provisional (as lichess).
export function ratingText(rating, provisional) {
  return `${Math.round(rating)}${provisional ? '?' : ''}`;
}

export function clockText(ms) {
  const t = Math.max(0, ms);
  const s = Math.floor(t / 1000);
  const m = Math.floor(s / 60);
  const hh = Math.floor(m / 60);
  const pad = (n) => String(n).padStart(2, '0');
  if (hh > 0) return `${hh}:${pad(m % 60)}:${pad(s % 60)}`;
  if (t < 10000) return `${pad(m)}:${pad(s % 60)}.${Math.floor((t % 1000) / 100)}`;
  return `${pad(m)}:${pad(s % 60)}`;
}
