// What a player can do besides moving: pass, offer, accept, decline or
// cancel a draw, abort, resign; takebacks, rematches and a new game like
// this one (offers.js); and the banner with the result once the game is
// over.

import { h } from '../dom.js';
import { reasonText } from '../tables.js';
import { createOffers } from './offers.js';
import { t } from '../i18n.js';

// ctx: {conn, id, model, sendMove(text)}. Returns {banner, actions, render}.
export function createActions(ctx) {
  const model = ctx.model;
  const banner = h('div', { class: 'banner', id: 'banner', hidden: true, role: 'status' });
  const actions = h('div', { class: 'row actions', id: 'actions' });

  function renderBanner() {
    const r = model.st.result;
    if (!r) { banner.hidden = true; return; }
    let text;
    if (r.reason === 'aborted') text = t('room.aborted');
    else if (r.winner < 0) text = t('room.draw');
    else text = t('room.wins', { name: model.seatName(r.winner) });
    // "Game aborted" says its reason already: not a second time below.
    if (r.reason === 'aborted') banner.replaceChildren(text);
    else banner.replaceChildren(text, h('span', { class: 'reason' }, reasonText(r.reason)));
    banner.hidden = false;
  }

  // A button that sends `type` for this room (after a confirmation if asked).
  const act = (type, label, cls, confirmText, id) => h('button', {
    type: 'button', class: cls || '', id: id || `btn-${type}`,
    onclick: () => {
      if (confirmText && !window.confirm(confirmText)) return;
      ctx.conn.request(type, { room: ctx.id }, false);
    },
  }, label);

  const more = createOffers(ctx, act);

  // While the game goes on: pass, the draw buttons, abort, resign.
  function playing(st) {
    const list = [];
    const offers = st.draw_offers || [];
    if ((st.legal || []).includes('pass') && st.you === st.to_move) {
      list.push(h('button', { type: 'button', id: 'btn-pass', onclick: () => ctx.sendMove('pass') }, t('room.pass')));
    }
    const offered = offers.filter((s) => s !== st.you);
    if (offers.includes(st.you)) list.push(act('draw_decline', t('room.canceldraw')));
    else list.push(act('draw_offer', offered.length ? t('room.acceptdraw') : t('room.offerdraw'), offered.length ? 'primary' : ''));
    if (offered.length && !offers.includes(st.you)) list.push(act('draw_decline', t('w.decline')));
    if (st.moves.length < st.seats.length) list.push(act('abort', t('room.abort')));
    list.push(act('resign', t('room.resign'), '', t('room.resignq')));
    list.push(...more.playing(st));
    return list;
  }

  function renderActions() {
    const st = model.st;
    const over = st.status === 'over';
    const player = st.you >= 0;
    // Who left a three-player game that goes on (resigned, ran out of
    // time) no longer offers, aborts or resigns: it is told it has left.
    const gone = player && !over && !model.stillPlaying;
    const list = model.stillPlaying ? playing(st) : [];
    if (gone) list.push(h('span', { class: 'muted', id: 'you-left' }, t('room.youleft', { reason: reasonText(st.seats[st.you].left) })));
    if (player && over) list.push(...more.over(st));
    if (st.next_room) list.push(h('a', { href: `#/game/${st.next_room}` }, t('room.gorematch')));
    // The analysis board: with the engine once the game is over; during
    // the game, for its players, without (in a new tab: the game goes on).
    if (over) list.push(h('a', { href: `#/analysis/game/${ctx.id}`, id: 'analysis-link' }, t('room.analysis')));
    else if (player) list.push(h('a', { href: `#/analysis/game/${ctx.id}`, id: 'analysis-link', target: '_blank', rel: 'noopener' }, t('room.analysisnoeng')));
    if (st.draw_offers && st.draw_offers.length && !over) {
      list.push(h('span', { class: 'muted', id: 'draw-note' }, t('room.drawby', { names: st.draw_offers.map((s) => model.seatName(s)).join(', ') })));
    }
    actions.replaceChildren(...list);
    // An offer from another seat waiting for this player's answer: on one
    // column (a phone) the buttons come up under the board (style.css).
    const awaitsMe = (offers) => player && (offers || []).some((s) => s !== st.you) && !(offers || []).includes(st.you);
    actions.classList.toggle('offered', over ? awaitsMe(st.rematch_offers) && !st.next_room
      : model.stillPlaying && (awaitsMe(st.draw_offers) || awaitsMe(st.takeback_offers)));
  }

  return { banner, actions, render: () => { renderBanner(); renderActions(); } };
}
