// The game sounds (web-client/sounds/, made by make-sounds.sh): one
// HTMLAudioElement per sound, made when first played. sound.play(name)
// plays it unless the player muted sounds (kept in localStorage,
// "chameleon.sound": "off" or "on"; account preferences may take it over).
// A browser that refuses to play (no user gesture yet, no Ogg support)
// stays silent: sounds are never worth an error.

const KEY = 'chameleon.sound';
export const SOUND_NAMES = ['move', 'capture', 'check', 'lowtime', 'start', 'end'];

const players = new Map();
const listeners = new Set();

function stored() {
  try { return localStorage.getItem(KEY) !== 'off'; } catch { return true; }
}

export const sound = {
  get on() { return stored(); },
  set on(v) {
    try { localStorage.setItem(KEY, v ? 'on' : 'off'); } catch { /* private mode: this page only */ }
    for (const fn of listeners) fn(!!v);
  },
  // Calls fn(on) whenever the switch changes; returns the unsubscribe.
  onChange(fn) { listeners.add(fn); return () => listeners.delete(fn); },
  // Plays `name` (one of SOUND_NAMES); true if it was started.
  play(name) {
    if (!this.on || !SOUND_NAMES.includes(name)) return false;
    let a = players.get(name);
    if (!a) {
      a = new Audio(`/sounds/${name}.ogg`);
      a.preload = 'auto';
      players.set(name, a);
    }
    try {
      a.currentTime = 0;
      const p = a.play();
      if (p && p.catch) p.catch(() => {});
    } catch { return false; }
    return true;
  },
};
