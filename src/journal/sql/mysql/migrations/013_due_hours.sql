-- delayq SQL journal (MySQL / MariaDB), schema version 13: the journal-only delayed jobs (loaded = 0,
-- unfinished) counted per topic and due hour (run_at DIV 3 600 000) as their rows change, so the due histogram
-- sums counters for its whole hours instead of grouping every journal-only row in range.
-- As delayq_journal_counts (migration 009): each connection adds to its own slot (the slot leads the key), the
-- reader sums the slots and folds them into slot 0 when they pile up (sql/due-histogram.ts).
CREATE TABLE delayq_journal_due_hours (
  slot  BIGINT       NOT NULL,
  topic VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  hour  BIGINT       NOT NULL,
  n     BIGINT       NOT NULL,
  PRIMARY KEY (slot, topic, hour)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TRIGGER delayq_count_journal_due_insert AFTER INSERT ON delayq_jobs FOR EACH ROW
  INSERT INTO delayq_journal_due_hours (slot, topic, hour, n)
    SELECT CONNECTION_ID(), NEW.topic, NEW.run_at DIV 3600000, 1 FROM DUAL
      WHERE NEW.loaded = 0 AND NEW.state = 'delayed' AND NEW.finished_at IS NULL
  ON DUPLICATE KEY UPDATE n = n + 1;

CREATE TRIGGER delayq_count_journal_due_delete AFTER DELETE ON delayq_jobs FOR EACH ROW
  INSERT INTO delayq_journal_due_hours (slot, topic, hour, n)
    SELECT CONNECTION_ID(), OLD.topic, OLD.run_at DIV 3600000, -1 FROM DUAL
      WHERE OLD.loaded = 0 AND OLD.state = 'delayed' AND OLD.finished_at IS NULL
  ON DUPLICATE KEY UPDATE n = n - 1;

CREATE TRIGGER delayq_count_journal_due_update AFTER UPDATE ON delayq_jobs FOR EACH ROW
  INSERT INTO delayq_journal_due_hours (slot, topic, hour, n)
    SELECT CONNECTION_ID(), OLD.topic, OLD.run_at DIV 3600000, -1 FROM DUAL
      WHERE OLD.loaded = 0 AND OLD.state = 'delayed' AND OLD.finished_at IS NULL
        AND NOT (NEW.loaded = 0 AND NEW.state = 'delayed' AND NEW.finished_at IS NULL AND NEW.topic = OLD.topic
          AND NEW.run_at DIV 3600000 = OLD.run_at DIV 3600000)
    UNION ALL
    SELECT CONNECTION_ID(), NEW.topic, NEW.run_at DIV 3600000, 1 FROM DUAL
      WHERE NEW.loaded = 0 AND NEW.state = 'delayed' AND NEW.finished_at IS NULL
        AND NOT (OLD.loaded = 0 AND OLD.state = 'delayed' AND OLD.finished_at IS NULL AND NEW.topic = OLD.topic
          AND NEW.run_at DIV 3600000 = OLD.run_at DIV 3600000)
  ON DUPLICATE KEY UPDATE n = n + VALUES(n);

-- The jobs already journaled.
INSERT INTO delayq_journal_due_hours (slot, topic, hour, n)
  SELECT 0, topic, run_at DIV 3600000, COUNT(*) FROM delayq_jobs
  WHERE loaded = 0 AND state = 'delayed' AND finished_at IS NULL GROUP BY topic, run_at DIV 3600000;
