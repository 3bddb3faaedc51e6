-- 0003: correspondence: the deadline index (checked at start-up and by a
-- timer), vacation, conditional moves.
CREATE INDEX games_deadline ON games (deadline_ms)
    WHERE finished = 0 AND kind = 1;

-- Vacation: the current or last one, and the days used in vacation_year.
ALTER TABLE accounts ADD COLUMN vacation_from_ms  BIGINT NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN vacation_until_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN vacation_year     BIGINT NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN vacation_used     BIGINT NOT NULL DEFAULT 0;

-- Conditional lines of a player in a game, in priority order: move texts
-- separated by spaces, starting with the opponent's next move.
CREATE TABLE cond_lines (
    game   BIGINT  NOT NULL REFERENCES games (id),
    player BIGINT  NOT NULL,
    idx    BIGINT  NOT NULL,
    line   TEXT    NOT NULL,
    PRIMARY KEY (game, player, idx)
);
