-- 0002: accounts and sessions. Passwords as argon2id strings (libsodium
-- crypto_pwhash_str); sessions keyed by the BLAKE2b hash of the token, the
-- token itself is never stored.
CREATE TABLE accounts (
    id         INTEGER PRIMARY KEY,
    username   TEXT    NOT NULL UNIQUE COLLATE NOCASE,
    pwhash     TEXT    NOT NULL,
    created_ms INTEGER NOT NULL
);

CREATE TABLE sessions (
    token_hash BLOB    PRIMARY KEY,
    account    INTEGER NOT NULL REFERENCES accounts (id),
    created_ms INTEGER NOT NULL,
    expires_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX sessions_account ON sessions (account);

CREATE INDEX game_players_account ON game_players (account, game);
