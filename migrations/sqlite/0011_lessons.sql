-- 0011: an account's progress in the lessons (the ids of the lessons done,
-- by game), one small JSON object per account, checked by
-- protocol/lessons.c before it is written (PROTOCOL.md, "Lessons").
CREATE TABLE lessons (
    account    INTEGER PRIMARY KEY REFERENCES accounts (id),
    json       TEXT    NOT NULL,
    updated_ms INTEGER NOT NULL
);
