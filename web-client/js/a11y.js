// The words spoken to screen readers by the board (board.js), the move
// list (room/history.js) and the clocks (room/bars.js), in one place; their
// text is i18n.js's ('a11y.*'). Owners are colours ("white"), said as the
// table's 'seat.*' so that each language can place them ("retireur des
// Blancs"); `who` is a colour's name as the table says it ("White").

import { t, tMaybe } from './i18n.js';
import { gameName } from './tables.js';

export const A11Y = {
  board: (game) => t('a11y.board', { game: gameName(game) }),
  cell: (name, what) => `${name}, ${what}`,
  piece: (colour, kind) => t('a11y.piece', { owner: tMaybe(`seat.${colour}`) || colour, kind: kind.toLowerCase() }),
  get empty() { return t('a11y.empty'); },
  get selected() { return t('a11y.selected'); },
  get dest() { return t('a11y.dest'); },
  move: (n, text) => t('a11y.move', { n, move: text }),
  yourTurn: (left) => (left ? t('a11y.yourturnleft', { left }) : t('nav.turn')),
  toMove: (who, left) => (left ? t('a11y.tomoveleft', { who, left }) : t('a11y.tomove', { who })),
  lowTime: (left) => t('a11y.lowtime', { left }),
};
