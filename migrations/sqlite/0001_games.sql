-- 0001: games, their players and their moves (live and correspondence).
-- Times are ms since the Unix epoch (UTC). kind: 0 live, 1 correspondence.
CREATE TABLE games (
    id           INTEGER PRIMARY KEY,
    variant      TEXT    NOT NULL,          -- rules id ("ultima")
    position     TEXT,                      -- start position; NULL = set-up
    kind         INTEGER NOT NULL CHECK (kind IN (0, 1)),
    rated        INTEGER NOT NULL DEFAULT 0,
    nplayers     INTEGER NOT NULL CHECK (nplayers BETWEEN 2 AND 3),
    tc_base_ms   INTEGER NOT NULL DEFAULT 0,
    tc_inc_ms    INTEGER NOT NULL DEFAULT 0,
    tc_cap_ms    INTEGER NOT NULL DEFAULT 0,
    options      TEXT,                      -- JSON object text
    created_ms   INTEGER NOT NULL,
    last_move_ms INTEGER NOT NULL,
    nmoves       INTEGER NOT NULL DEFAULT 0,
    to_move      INTEGER NOT NULL DEFAULT 0,  -- -1 when finished
    deadline_ms  INTEGER NOT NULL DEFAULT 0,  -- correspondence only
    finished     INTEGER NOT NULL DEFAULT 0,
    winner       INTEGER NOT NULL DEFAULT -1,
    reason       TEXT,                       -- rules_reason_name
    finished_ms  INTEGER
);
CREATE INDEX games_in_progress ON games (finished, id);

-- One row per seat; clock_ms: live remaining time after the last move, or
-- the correspondence bank. outcome: rules_outcome (0 none, 1 win, 2 loss,
-- 3 draw).
CREATE TABLE game_players (
    game     INTEGER NOT NULL REFERENCES games (id),
    seat     INTEGER NOT NULL,
    account  INTEGER,                        -- NULL for a guest
    name     TEXT    NOT NULL,
    clock_ms INTEGER NOT NULL DEFAULT 0,
    outcome  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game, seat)
) WITHOUT ROWID;

CREATE TABLE moves (
    game     INTEGER NOT NULL REFERENCES games (id),
    ply      INTEGER NOT NULL,
    player   INTEGER NOT NULL,
    text     TEXT    NOT NULL,               -- notation.md input text
    at_ms    INTEGER NOT NULL,
    clock0   INTEGER,
    clock1   INTEGER,
    clock2   INTEGER,
    PRIMARY KEY (game, ply)
) WITHOUT ROWID;

-- A player who left while the others played on (three-player games).
CREATE TABLE leaves (
    game      INTEGER NOT NULL REFERENCES games (id),
    player    INTEGER NOT NULL,
    after_ply INTEGER NOT NULL,
    reason    TEXT    NOT NULL,
    at_ms     INTEGER NOT NULL,
    PRIMARY KEY (game, player)
) WITHOUT ROWID;
