-- delayq SQL journal (MySQL / MariaDB), schema version 9: the journal-only jobs (loaded = 0: far-future jobs,
-- and ended jobs purged from the inner store) counted per topic and state as their rows change, so /v1/stats
-- reads a few counter rows instead of grouping every journal-only row (seconds at ten million).
-- Each connection adds to its own row (slot = CONNECTION_ID()): two transactions never wait on one counter row.
-- The slot leads the key, so one connection's rows sit together and its inserts rarely share a gap (InnoDB's
-- gap locks) with another's; the rare deadlock that remains is retried by the writer (sql-journal.ts).
-- The reader sums the slots and folds them into slot 0 when they pile up (sql/journal-only-counts.ts).
-- Each trigger is one statement (no BEGIN … END), so the migration splits on its semicolons as usual.
CREATE TABLE delayq_journal_counts (
  topic VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  state VARCHAR(16)  NOT NULL,
  slot  BIGINT       NOT NULL,
  n     BIGINT       NOT NULL,
  PRIMARY KEY (slot, topic, state)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TRIGGER delayq_count_journal_only_insert AFTER INSERT ON delayq_jobs FOR EACH ROW
  INSERT INTO delayq_journal_counts (topic, state, slot, n)
    SELECT NEW.topic, NEW.state, CONNECTION_ID(), 1 FROM DUAL WHERE NEW.loaded = 0
  ON DUPLICATE KEY UPDATE n = n + 1;

CREATE TRIGGER delayq_count_journal_only_delete AFTER DELETE ON delayq_jobs FOR EACH ROW
  INSERT INTO delayq_journal_counts (topic, state, slot, n)
    SELECT OLD.topic, OLD.state, CONNECTION_ID(), -1 FROM DUAL WHERE OLD.loaded = 0
  ON DUPLICATE KEY UPDATE n = n - 1;

CREATE TRIGGER delayq_count_journal_only_update AFTER UPDATE ON delayq_jobs FOR EACH ROW
  INSERT INTO delayq_journal_counts (topic, state, slot, n)
    SELECT OLD.topic, OLD.state, CONNECTION_ID(), -1 FROM DUAL
      WHERE OLD.loaded = 0 AND NOT (NEW.loaded = 0 AND NEW.topic = OLD.topic AND NEW.state = OLD.state)
    UNION ALL
    SELECT NEW.topic, NEW.state, CONNECTION_ID(), 1 FROM DUAL
      WHERE NEW.loaded = 0 AND NOT (OLD.loaded = 0 AND NEW.topic = OLD.topic AND NEW.state = OLD.state)
  ON DUPLICATE KEY UPDATE n = n + VALUES(n);

-- The jobs already journaled.
INSERT INTO delayq_journal_counts (topic, state, slot, n)
  SELECT topic, state, 0, COUNT(*) FROM delayq_jobs WHERE loaded = 0 GROUP BY topic, state;

-- A topic's next journal-only due time: the first entry of this range (stats' nextDueAt). The topic leads, so
-- the loader's claim (loaded = 0 … ORDER BY run_at, no topic) never takes this index for its own.
CREATE INDEX delayq_jobs_journal_only_due ON delayq_jobs (topic, loaded, state, run_at);
