// The words spoken to screen readers by the board (board.js), the move
// list (room/history.js) and the clocks (room/bars.js), in one place so
// that the translation table can take them over.

export const A11Y = {
  board: (game) => `${game} board: arrow keys move, Enter or Space selects and plays, Escape cancels`,
  cell: (name, what) => `${name}, ${what}`,
  piece: (owner, kind) => `${owner.toLowerCase()} ${kind.toLowerCase()}`,
  empty: 'empty',
  selected: 'selected',
  dest: 'can move here',
  move: (n, text) => `Move ${n}: ${text}`,
  yourTurn: (left) => (left ? `Your turn, ${left} left` : 'Your turn'),
  toMove: (who, left) => (left ? `${who} to move, ${left} left` : `${who} to move`),
  lowTime: (left) => `${left} left on your clock`,
};
