-- 0007: Web Push (PROTOCOL.md, "Web Push and in-tab notices"). The
-- server's VAPID key pair (RFC 8292), made at the first start: one row.
-- Subscriptions per account (PushSubscription: endpoint, keys.p256dh as
-- the 65-byte point, keys.auth as 16 bytes); an endpoint belongs to one
-- account at a time (the last to subscribe it). Removed when the push
-- service answers 404 or 410, or the browser unsubscribes.
CREATE TABLE push_vapid (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    private_key BLOB    NOT NULL,
    public_key  BLOB    NOT NULL,
    created_ms  INTEGER NOT NULL
);

CREATE TABLE push_subs (
    id         INTEGER PRIMARY KEY,
    account    INTEGER NOT NULL REFERENCES accounts (id),
    endpoint   TEXT    NOT NULL UNIQUE,
    p256dh     BLOB    NOT NULL,
    auth       BLOB    NOT NULL,
    created_ms INTEGER NOT NULL
);
CREATE INDEX push_subs_account ON push_subs (account, id);
