-- 0001: games, their players and their moves (live and correspondence).
-- The PostgreSQL twin of sqlite/0001_games.sql: every integer is a BIGINT
-- (the store binds 64-bit integers everywhere), flags stay integers 0/1.
-- Times are ms since the Unix epoch (UTC). kind: 0 live, 1 correspondence.
CREATE TABLE games (
    id           BIGINT  PRIMARY KEY,       -- set by the store
    variant      TEXT    NOT NULL,          -- rules id ("ultima")
    position     TEXT,                      -- start position; NULL = set-up
    kind         BIGINT  NOT NULL CHECK (kind IN (0, 1)),
    rated        BIGINT  NOT NULL DEFAULT 0,
    nplayers     BIGINT  NOT NULL CHECK (nplayers BETWEEN 2 AND 3),
    tc_base_ms   BIGINT  NOT NULL DEFAULT 0,
    tc_inc_ms    BIGINT  NOT NULL DEFAULT 0,
    tc_cap_ms    BIGINT  NOT NULL DEFAULT 0,
    options      TEXT,                      -- JSON object text
    created_ms   BIGINT  NOT NULL,
    last_move_ms BIGINT  NOT NULL,
    nmoves       BIGINT  NOT NULL DEFAULT 0,
    to_move      BIGINT  NOT NULL DEFAULT 0,  -- -1 when finished
    deadline_ms  BIGINT  NOT NULL DEFAULT 0,  -- correspondence only
    finished     BIGINT  NOT NULL DEFAULT 0,
    winner       BIGINT  NOT NULL DEFAULT -1,
    reason       TEXT,                       -- rules_reason_name
    finished_ms  BIGINT
);
CREATE INDEX games_in_progress ON games (finished, id);

-- One row per seat; clock_ms: live remaining time after the last move, or
-- the correspondence bank. outcome: rules_outcome (0 none, 1 win, 2 loss,
-- 3 draw).
CREATE TABLE game_players (
    game     BIGINT  NOT NULL REFERENCES games (id),
    seat     BIGINT  NOT NULL,
    account  BIGINT,                         -- NULL for a guest
    name     TEXT    NOT NULL,
    clock_ms BIGINT  NOT NULL DEFAULT 0,
    outcome  BIGINT  NOT NULL DEFAULT 0,
    PRIMARY KEY (game, seat)
);

CREATE TABLE moves (
    game     BIGINT  NOT NULL REFERENCES games (id),
    ply      BIGINT  NOT NULL,
    player   BIGINT  NOT NULL,
    text     TEXT    NOT NULL,               -- notation.md input text
    at_ms    BIGINT  NOT NULL,
    clock0   BIGINT,
    clock1   BIGINT,
    clock2   BIGINT,
    PRIMARY KEY (game, ply)
);

-- A player who left while the others played on (three-player games).
CREATE TABLE leaves (
    game      BIGINT  NOT NULL REFERENCES games (id),
    player    BIGINT  NOT NULL,
    after_ply BIGINT  NOT NULL,
    reason    TEXT    NOT NULL,
    at_ms     BIGINT  NOT NULL,
    PRIMARY KEY (game, player)
);
