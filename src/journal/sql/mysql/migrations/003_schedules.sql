-- delayq SQL journal (MySQL / MariaDB), schema version 3: schedules (src/schedule), so a store loss restores them.
-- One row per schedule name: the record as opaque JSON (NULL once deleted: a tombstone), and the version it
-- is, (created_at, revision, cursor_at), compared on every write so a late write never undoes a newer one.
CREATE TABLE delayq_schedules (
  name       VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
  created_at BIGINT   NOT NULL,
  revision   INT      NOT NULL,
  cursor_at  BIGINT   NOT NULL,
  record     LONGTEXT,
  updated_at BIGINT   NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
