// The server's tables, as GET /api/tables gives them (PROTOCOL.md, HTTP):
// the games (id, name, players, colors, cells, setup), the days a
// correspondence game may give per move, the words for results' reasons.
// The client keeps no copy of its own: app.js reads them before it opens
// the connection, and pages that show them draw on the welcome. Game and
// colour names go through i18n.js (the server's English otherwise).

import { tMaybe } from './i18n.js';

const tables = { loaded: false, games: [], corrDays: [], reasons: {} };

// Called once with GET /api/tables' answer (app.js, before connecting).
export function setTables(t) {
  tables.games = t.games || [];
  tables.corrDays = t.corr_days || [];
  tables.reasons = t.reasons || {};
  tables.loaded = true;
}

export const tablesLoaded = () => tables.loaded;

// Every game of the server, in its order.
export const games = () => tables.games.map((g) => ({ ...g, name: tMaybe(`game.${g.id}`) || g.name }));

// One game's record ({id, name, players, colors, cells, setup}), or null.
export function gameInfo(id) {
  return tables.games.find((g) => g.id === id) || null;
}

// A game's name for people ("Yalta chess (three players)"); its id while
// the server has not named it.
export function gameName(id) {
  const g = gameInfo(id);
  return g ? (tMaybe(`game.${g.id}`) || g.name) : String(id ?? '');
}

// The days per move a correspondence seek may ask for.
export const corrDays = () => tables.corrDays;

// Words for a result's or a leave's reason ("threefold repetition").
export function reasonText(reason) {
  return tMaybe(`reason.${reason}`) || tables.reasons[reason] || String(reason ?? '');
}

// "white" -> "White": a seat's colour as a name.
export function colourName(colour) {
  if (!colour) return '';
  return tMaybe(`colour.${colour}`) || colour[0].toUpperCase() + colour.slice(1);
}
