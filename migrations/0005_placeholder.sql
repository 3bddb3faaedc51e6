-- 0005: a placeholder on branch h-tourney only, so that 0008 applies in
-- sequence here; the migrations of the other branches take this number at
-- merge (delete this file then).
SELECT 1;
