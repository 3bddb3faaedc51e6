-- 0010: games set aside at start-up. A game in progress whose restore
-- failed (its moves no longer replay, its seats cannot be made) is marked
-- with the reason instead of being restored again at every start; it stays
-- on disk, is listed by `chameleon set-aside` and restored again once an
-- operator clears the mark (`chameleon set-aside --clear ID`).
ALTER TABLE games ADD COLUMN set_aside TEXT;
