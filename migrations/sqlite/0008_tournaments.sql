-- 0008: correspondence round-robin tournaments (docs/TOURNAMENTS.md): the
-- tournament, its entrants (invited, joined, withdrawn) and its games with
-- the places of each finished one. state: 0 open, 1 running, 2 finished,
-- 3 cancelled. Times in ms since the epoch.
CREATE TABLE tournaments (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL,
    director    INTEGER NOT NULL REFERENCES accounts (id),
    variant     TEXT    NOT NULL,               -- rules id
    size        INTEGER NOT NULL CHECK (size BETWEEN 3 AND 12),
    double_rr   INTEGER NOT NULL DEFAULT 0,
    tc_base_ms  INTEGER NOT NULL,               -- as games.tc_* (correspondence)
    tc_inc_ms   INTEGER NOT NULL DEFAULT 0,
    tc_cap_ms   INTEGER NOT NULL DEFAULT 0,
    start_ms    INTEGER NOT NULL DEFAULT 0,     -- 0: when full
    invite_only INTEGER NOT NULL DEFAULT 0,
    rated       INTEGER NOT NULL DEFAULT 0,
    state       INTEGER NOT NULL DEFAULT 0,
    created_ms  INTEGER NOT NULL,
    state_ms    INTEGER NOT NULL                -- when state last changed
);

-- status: 0 invited (not joined yet), 1 joined, 2 withdrew after the start
-- (played_at: games finished then). idx: the entrant's number in the
-- section, set at the start.
CREATE TABLE tournament_entrants (
    tournament INTEGER NOT NULL REFERENCES tournaments (id),
    account    INTEGER NOT NULL REFERENCES accounts (id),
    status     INTEGER NOT NULL,
    idx        INTEGER NOT NULL DEFAULT -1,
    at_ms      INTEGER NOT NULL,
    played_at  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tournament, account)
) WITHOUT ROWID;

-- One row per game of a section: entrant indexes by seat (p2 NULL for two
-- players) and, once finished, the place of each seat (0 best).
CREATE TABLE tournament_games (
    tournament INTEGER NOT NULL REFERENCES tournaments (id),
    game       INTEGER NOT NULL,
    round      INTEGER NOT NULL,
    p0         INTEGER NOT NULL,
    p1         INTEGER NOT NULL,
    p2         INTEGER,
    rank0      INTEGER,
    rank1      INTEGER,
    rank2      INTEGER,
    PRIMARY KEY (tournament, game)
) WITHOUT ROWID;
CREATE INDEX tournament_games_game ON tournament_games (game);
