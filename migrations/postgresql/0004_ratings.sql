-- 0004: Glicko-2 ratings, one per account, variant (rules id) and pace
-- (bullet, blitz, rapid, classical, correspondence); the history of each
-- (one row per rated game of the account). Times in ms since the epoch.
CREATE TABLE ratings (
    account BIGINT           NOT NULL REFERENCES accounts (id),
    variant TEXT             NOT NULL,
    pace    TEXT             NOT NULL,
    rating  DOUBLE PRECISION NOT NULL,
    rd      DOUBLE PRECISION NOT NULL,
    vol     DOUBLE PRECISION NOT NULL,
    games   BIGINT           NOT NULL,
    last_ms BIGINT           NOT NULL,      -- the last rated game
    PRIMARY KEY (account, variant, pace)
);
CREATE INDEX ratings_board ON ratings (variant, pace, rating);

CREATE TABLE rating_history (
    account BIGINT           NOT NULL REFERENCES accounts (id),
    game    BIGINT           NOT NULL REFERENCES games (id),
    variant TEXT             NOT NULL,
    pace    TEXT             NOT NULL,
    at_ms   BIGINT           NOT NULL,
    before  DOUBLE PRECISION NOT NULL,
    after   DOUBLE PRECISION NOT NULL,
    rd      DOUBLE PRECISION NOT NULL,      -- after the game
    PRIMARY KEY (account, game)
);
