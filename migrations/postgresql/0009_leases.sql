-- 0009: several server nodes on one database (--node NAME; server/
-- store_lease.c, docs/SCALING.md "Leases"). Each game in progress is
-- written by one node at a time: the node that holds its lease. A lease
-- lives until expires_ms unless its node renews it; fence grows each time
-- the lease changes hands (one sequence for every game and node), and
-- every write of a game checks, in its transaction, that the row still
-- carries the writer's fence. A single server (no --node) uses none of
-- this.
CREATE TABLE nodes (
    name         TEXT    PRIMARY KEY,
    started_ms   BIGINT  NOT NULL,
    heartbeat_ms BIGINT  NOT NULL          -- the last renewal that committed
);

CREATE SEQUENCE room_fence;

CREATE TABLE room_leases (
    game       BIGINT  PRIMARY KEY REFERENCES games (id),
    node       TEXT    NOT NULL,
    fence      BIGINT  NOT NULL,           -- nextval('room_fence')
    expires_ms BIGINT  NOT NULL
);
CREATE INDEX room_leases_node ON room_leases (node);

-- Game ids of the nodes: each node reserves blocks of ids (a value of this
-- sequence times 2^20 and the next 2^20 - 1), since a node cannot number
-- games from max(id) as a single server does.
CREATE SEQUENCE game_id_blocks;
