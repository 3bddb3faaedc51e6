-- 0013: two-factor sign-in (PROTOCOL.md, "Accounts"). An account's TOTP
-- secret (RFC 6238; 20 bytes, what an authenticator app holds too), not yet
-- in force until a first code confirms it (enabled 0), and the last time
-- step a code was taken for (a code is good once); its recovery codes, each
-- usable once, kept as BLAKE2b hashes only.
CREATE TABLE totp (
    account    INTEGER PRIMARY KEY REFERENCES accounts (id),
    secret     BLOB    NOT NULL,
    enabled    INTEGER NOT NULL DEFAULT 0,
    last_step  INTEGER NOT NULL DEFAULT 0,
    created_ms INTEGER NOT NULL
);

CREATE TABLE recovery_codes (
    account   INTEGER NOT NULL REFERENCES accounts (id),
    code_hash BLOB    NOT NULL,
    PRIMARY KEY (account, code_hash)
) WITHOUT ROWID;
