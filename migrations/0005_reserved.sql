-- 0005: reserved for another branch's migration (issue 15's Web Push
-- helper); empty here so that 0006 applies in sequence on this branch.
-- Drop this file when merging (the numbers are renumbered then).
SELECT 1;
