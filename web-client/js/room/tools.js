// The game page's small tools, under the buttons: the sound switch
// (sound.js), flip the board (two players: the other side at the bottom;
// three: each seat in turn), download the game's PGN (GET
// /api/games/<id>.pgn, an attachment), copy the position string (the
// rules core's, as the analysis board and the engine read it).

import { h } from '../dom.js';
import { t } from '../i18n.js';
import { sound } from '../sound.js';

// ctx: {id, model, view: {seat}, say(text), render()}. Returns {el, render}.
export function createTools(ctx) {
  const model = ctx.model;
  const soundBtn = h('button', { type: 'button', id: 'btn-sound', class: 'tool', onclick: () => { sound.on = !sound.on; } });
  const showSound = (on) => {
    soundBtn.textContent = `\u266a ${on ? t('room.soundon') : t('room.soundoff')}`;
    soundBtn.setAttribute('aria-pressed', on ? 'false' : 'true');
    soundBtn.title = on ? t('room.mute') : t('room.unmute');
  };
  showSound(sound.on);
  const offSound = sound.onChange(showSound);

  const flip = h('button', {
    type: 'button', id: 'btn-flip', class: 'tool', title: t('room.fliptitle'),
    onclick: () => {
      const n = model.st ? model.st.seats.length : 2;
      ctx.view.seat = ((ctx.view.seat || 0) + 1) % n;
      ctx.render();
    },
  }, `\u21c5 ${t('room.flip')}`);

  const pgn = h('a', {
    class: 'button tool', id: 'btn-pgn', href: `/api/games/${ctx.id}.pgn`, download: `chameleon-${ctx.id}.pgn`,
  }, '\u2913 PGN');

  const copy = h('button', {
    type: 'button', id: 'btn-copy-position', class: 'tool', title: t('room.copytitle'),
    onclick: async () => {
      const text = model.st && model.st.position;
      if (!text) return;
      try {
        await navigator.clipboard.writeText(text);
        ctx.say(t('room.copied'));
      } catch {
        ctx.say(t('room.position', { text })); // no clipboard here: shown to copy by hand
      }
    },
  }, t('an.copy'));

  const el = h('div', { class: 'row tools', id: 'tools' }, soundBtn, flip, pgn, copy);

  function render() {
    const st = model.st;
    if (!st) return;
    flip.textContent = st.seats.length > 2 ? `\u21bb ${t('room.rotate')}` : `\u21c5 ${t('room.flip')}`;
    copy.hidden = !st.position;
  }

  return { el, render, destroy: offSound };
}
