-- Placeholder on the h-push branch only: the migrations must be numbered
-- in sequence, and 0005 and 0006 are other branches'. Delete this file when
-- merging (0007_push.sql keeps its number, or takes the next free one).
SELECT 1;
