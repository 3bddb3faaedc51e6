-- 0013: two-factor sign-in (PROTOCOL.md, "Accounts"). An account's TOTP
-- secret (RFC 6238; 20 bytes, what an authenticator app holds too), not yet
-- in force until a first code confirms it (enabled 0), and the last time
-- step a code was taken for (a code is good once); its recovery codes, each
-- usable once, kept as BLAKE2b hashes only.
CREATE TABLE totp (
    account    BIGINT PRIMARY KEY REFERENCES accounts (id),
    secret     BYTEA   NOT NULL,
    enabled    BIGINT  NOT NULL DEFAULT 0,
    last_step  BIGINT  NOT NULL DEFAULT 0,
    created_ms BIGINT  NOT NULL
);

CREATE TABLE recovery_codes (
    account   BIGINT NOT NULL REFERENCES accounts (id),
    code_hash BYTEA  NOT NULL,
    PRIMARY KEY (account, code_hash)
);
