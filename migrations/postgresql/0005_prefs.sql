-- 0005: an account's preferences (theme, board colours, piece set, sound),
-- one small JSON object per account, checked by protocol/prefs.c before it
-- is written (PROTOCOL.md, "Preferences").
CREATE TABLE prefs (
    account    BIGINT  PRIMARY KEY REFERENCES accounts (id),
    json       TEXT    NOT NULL,
    updated_ms BIGINT  NOT NULL
);
