-- 0012: what names a login in its account's list of sessions (PROTOCOL.md,
-- "Accounts"): the browser's User-Agent as it logged in (at most 200
-- bytes), so that a player can tell their devices apart and end one.
ALTER TABLE sessions ADD COLUMN agent TEXT NOT NULL DEFAULT '';
