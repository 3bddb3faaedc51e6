-- 0004: Glicko-2 ratings, one per account, variant (rules id) and pace
-- (bullet, blitz, rapid, classical, correspondence); the history of each
-- (one row per rated game of the account). Times in ms since the epoch.
CREATE TABLE ratings (
    account INTEGER NOT NULL REFERENCES accounts (id),
    variant TEXT    NOT NULL,
    pace    TEXT    NOT NULL,
    rating  REAL    NOT NULL,
    rd      REAL    NOT NULL,
    vol     REAL    NOT NULL,
    games   INTEGER NOT NULL,
    last_ms INTEGER NOT NULL,               -- the last rated game
    PRIMARY KEY (account, variant, pace)
) WITHOUT ROWID;
CREATE INDEX ratings_board ON ratings (variant, pace, rating);

CREATE TABLE rating_history (
    account INTEGER NOT NULL REFERENCES accounts (id),
    game    INTEGER NOT NULL REFERENCES games (id),
    variant TEXT    NOT NULL,
    pace    TEXT    NOT NULL,
    at_ms   INTEGER NOT NULL,
    before  REAL    NOT NULL,
    after   REAL    NOT NULL,
    rd      REAL    NOT NULL,               -- after the game
    PRIMARY KEY (account, game)
) WITHOUT ROWID;
