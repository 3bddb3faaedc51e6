// What a lesson's task asks of the move played (web-client/lessons/*.json),
// judged by the rules core (rules.js), for the lessons page and for the
// lessons' own test (tests/wasm/lessons.test.mjs). No rule lives here.
//
// A goal is an object; every key given must hold:
//   captures: [cells]  the move captures each of them
//   empty:    [cells]  each is empty after the move (a piece removed)
//   frozen:   [cells]  each holds a piece frozen after the move
//   free:     [cells]  each holds a piece not frozen after the move
//   reach:    {cell: letter}  each cell holds the mover's piece of that
//                      letter after the move (a piece brought there, a
//                      promotion)
//   win: true          the move ends the game, won by the mover

// Plays `text` on g (a rules.js Game where the task stands) and takes it
// back. Returns {ok, captures, display}; a move the rules refuse throws.
export function judge(g, text, goal) {
  const mover = g.status().toMove;
  const captures = g.captures(text);
  const display = g.play(text);
  try {
    const { position, frozen } = g.boardView();
    const status = g.status();
    const ok = (goal.captures || []).every((c) => captures.includes(c)) &&
      (goal.empty || []).every((c) => !position.has(c)) &&
      (goal.frozen || []).every((c) => frozen.includes(c)) &&
      (goal.free || []).every((c) => position.has(c) && !frozen.includes(c)) &&
      Object.entries(goal.reach || {}).every(([c, letter]) => position.get(c)?.kind === letter && position.get(c).owner === mover) &&
      (!goal.win || (status.over && status.winner === mover));
    return { ok, captures, display };
  } finally {
    g.undo();
  }
}

// A text of a lesson in the language, else English.
export const say = (texts, lang) => (texts && (texts[lang] || texts.en)) || '';
