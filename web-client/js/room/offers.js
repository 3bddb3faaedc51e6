// The buttons of takebacks and rematches, and "new game with the same
// settings" (PROTOCOL.md, "Takebacks, rematches and downloads"), for
// actions.js: takeback (casual live two-player games), accept or decline
// it; rematch, accept or decline it; a new seek (or bot game) like this one.

import { errText, t } from '../i18n.js';
import { h } from '../dom.js';

// ctx: {app, conn, id, model, say(text)}; act(type, label, cls, confirm)
// makes a button sending `type` for the room (actions.js).
export function createOffers(ctx, act) {
  const model = ctx.model;

  const takebacksHere = (st) => !st.corr && st.seats.length === 2;

  // While the game goes on.
  function playing(st) {
    const list = [];
    if (!takebacksHere(st)) return list;
    const offers = st.takeback_offers || [];
    const other = offers.find((s) => s !== st.you);
    if (other !== undefined) {
      list.push(act('takeback', t('room.acctb'), 'primary', null, 'btn-takeback-accept'));
      list.push(act('takeback_decline', t('room.dectb'), '', null, 'btn-takeback-decline'));
      list.push(h('span', { class: 'muted', id: 'takeback-note' }, t('ann.tboffer', { name: model.seatName(other) })));
    } else if (offers.includes(st.you)) {
      list.push(h('span', { class: 'muted', id: 'takeback-note' }, t('room.tbasked')));
      list.push(act('takeback_decline', t('room.canceltb'), '', null, 'btn-takeback-cancel'));
    } else if (st.moves.some((m) => m.seat === st.you)) {
      list.push(act('takeback', t('room.tb'), '', null, 'btn-takeback'));
    }
    const no = st.takeback_declined; // shown until the next move
    if (no && no.seat !== st.you && no.ply === st.moves.length && !offers.length) {
      list.push(h('span', { class: 'muted', id: 'takeback-note' }, t('room.tbdeclined')));
    }
    return list;
  }

  // "New game with the same settings": the same game and time control, as
  // a new seek in the lobby, or a new game with the same bots.
  async function newGame() {
    const st = model.st;
    const tc = st.corr ? { corr: { days: st.corr.days, inc_days: st.corr.inc_days, cap_days: st.corr.cap_days } }
      : { base_ms: st.base_ms, inc_ms: st.inc_ms };
    const bot = st.seats.find((s) => s.player && s.player.bot);
    try {
      if (bot) {
        await ctx.conn.request('bot_game', { game: st.game, level: bot.player.level, seat: st.you, ...tc }); // game_started opens it
      } else {
        await ctx.conn.request('seek_create', { game: st.game, rated: !!st.rated, ...tc });
        ctx.app.go('#/');
      }
    } catch (e) {
      ctx.say(errText(e));
    }
  }

  // Once the game is over (players only).
  function over(st) {
    const list = [];
    if (st.next_room) return list;
    const offers = st.rematch_offers || [];
    const others = offers.filter((s) => s !== st.you);
    if (offers.includes(st.you)) {
      list.push(h('span', { class: 'muted', id: 'rematch-note' }, t('room.rmasked')));
      list.push(act('rematch_decline', t('room.cancelrm'), '', null, 'btn-rematch-cancel'));
    } else if (others.length) {
      list.push(act('rematch', t('room.acceptrm'), 'primary'));
      list.push(act('rematch_decline', t('w.decline'), '', null, 'btn-rematch-decline'));
      list.push(h('span', { class: 'muted', id: 'rematch-note' }, t('room.rmby', { names: others.map((s) => model.seatName(s)).join(', ') })));
    } else {
      list.push(act('rematch', t('room.rematch'), 'primary'));
      if (st.rematch_declined !== undefined && st.rematch_declined !== null && st.rematch_declined !== st.you) {
        list.push(h('span', { class: 'muted', id: 'rematch-note' }, t('room.rmdeclined')));
      }
    }
    if (!st.archived) list.push(h('button', { type: 'button', id: 'btn-new-same', onclick: newGame }, t('room.newsame')));
    return list;
  }

  return { playing, over };
}
