-- 0006: e-mail (PROTOCOL.md, "E-mail"). An account's address, its
-- notification preferences and its unsubscribe token; the tokens of the
-- confirmation and password-reset links (only their BLAKE2b hash is kept);
-- the outbox the mail worker sends from.

-- One row per account that ever gave an address. `address` is the
-- confirmed one (NULL until a link confirms it); `prefs` holds one bit per
-- kind of notice (store.h STORE_MAIL_*); `unsub` is the opaque token of the
-- one-click unsubscribe link (not a credential: it can only turn notices
-- off).
CREATE TABLE mail_addresses (
    account     INTEGER PRIMARY KEY REFERENCES accounts (id),
    address     TEXT,
    prefs       INTEGER NOT NULL,
    remind_days INTEGER NOT NULL DEFAULT 0,
    unsub       TEXT    NOT NULL UNIQUE
);
CREATE INDEX mail_addresses_address ON mail_addresses (address COLLATE NOCASE)
    WHERE address IS NOT NULL;

-- purpose 1: confirm `address` for the account; 2: reset its password.
CREATE TABLE mail_tokens (
    token_hash BLOB    PRIMARY KEY,
    account    INTEGER NOT NULL REFERENCES accounts (id),
    purpose    INTEGER NOT NULL,
    address    TEXT,
    expires_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX mail_tokens_account ON mail_tokens (account);

-- Mail to send. A row is written in the transaction that decided to send
-- it and is marked sent right after the relay accepted it. `dedupe` makes
-- a notice idempotent (e.g. "low:<game>:<ply>:<account>"): a second row
-- with the same key is not written.
CREATE TABLE mail_outbox (
    id         INTEGER PRIMARY KEY,
    account    INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    dedupe     TEXT    UNIQUE,
    to_addr    TEXT    NOT NULL,
    subject    TEXT    NOT NULL,
    body       TEXT    NOT NULL,
    created_ms INTEGER NOT NULL,
    next_ms    INTEGER NOT NULL,
    tries      INTEGER NOT NULL DEFAULT 0,
    sent_ms    INTEGER,
    failed_ms  INTEGER,
    last_error TEXT
);
CREATE INDEX mail_outbox_due ON mail_outbox (next_ms)
    WHERE sent_ms IS NULL AND failed_ms IS NULL;
