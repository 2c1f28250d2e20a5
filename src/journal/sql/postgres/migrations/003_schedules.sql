-- delayq SQL journal (PostgreSQL), schema version 3: schedules (src/schedule), so a store loss restores them.
-- One row per schedule name: the record as opaque JSON (NULL once deleted: a tombstone), and the version it
-- is, (created_at, revision, cursor_at), compared on every write so a late write never undoes a newer one.
CREATE TABLE delayq_schedules (
  name       TEXT COLLATE "C" PRIMARY KEY,
  created_at BIGINT  NOT NULL,
  revision   INTEGER NOT NULL,
  cursor_at  BIGINT  NOT NULL,
  record     TEXT,
  updated_at BIGINT  NOT NULL
);
