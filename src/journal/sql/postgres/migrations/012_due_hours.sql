-- delayq SQL journal (PostgreSQL), schema version 12: the journal-only delayed jobs (loaded = 0, unfinished)
-- counted per topic and due hour (run_at / 3 600 000) as their rows change, so the due histogram sums counters
-- for its whole hours instead of grouping every journal-only row in range (3.6 s for a 30-day view at 10 M).
-- As delayq_journal_counts (migration 008): each writing connection adds to its own slot, the reader sums the
-- slots and folds them into slot 0 when they pile up (sql/due-histogram.ts).
CREATE TABLE delayq_journal_due_hours (
  topic TEXT    NOT NULL,
  hour  BIGINT  NOT NULL,
  slot  INTEGER NOT NULL,
  n     BIGINT  NOT NULL,
  PRIMARY KEY (topic, hour, slot)
);

-- One statement's changes, netted per topic and hour (a row updated in place counts nothing).
CREATE FUNCTION delayq_count_journal_due() RETURNS trigger LANGUAGE plpgsql
  SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO delayq_journal_due_hours (topic, hour, slot, n)
      SELECT topic, run_at / 3600000, pg_backend_pid(), count(*) FROM delayq_new_rows
      WHERE loaded = 0 AND state = 'delayed' AND finished_at IS NULL
      GROUP BY 1, 2 ORDER BY 1, 2
      ON CONFLICT (topic, hour, slot) DO UPDATE SET n = delayq_journal_due_hours.n + excluded.n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO delayq_journal_due_hours (topic, hour, slot, n)
      SELECT topic, run_at / 3600000, pg_backend_pid(), -count(*) FROM delayq_old_rows
      WHERE loaded = 0 AND state = 'delayed' AND finished_at IS NULL
      GROUP BY 1, 2 ORDER BY 1, 2
      ON CONFLICT (topic, hour, slot) DO UPDATE SET n = delayq_journal_due_hours.n + excluded.n;
  ELSE
    INSERT INTO delayq_journal_due_hours (topic, hour, slot, n)
      SELECT topic, hour, pg_backend_pid(), sum(d) FROM (
        SELECT topic, run_at / 3600000 AS hour, -1 AS d FROM delayq_old_rows
          WHERE loaded = 0 AND state = 'delayed' AND finished_at IS NULL
        UNION ALL
        SELECT topic, run_at / 3600000 AS hour, 1 AS d FROM delayq_new_rows
          WHERE loaded = 0 AND state = 'delayed' AND finished_at IS NULL
      ) AS changes
      GROUP BY topic, hour HAVING sum(d) <> 0 ORDER BY topic, hour
      ON CONFLICT (topic, hour, slot) DO UPDATE SET n = delayq_journal_due_hours.n + excluded.n;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER delayq_count_journal_due_insert AFTER INSERT ON delayq_jobs
  REFERENCING NEW TABLE AS delayq_new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION delayq_count_journal_due();
CREATE TRIGGER delayq_count_journal_due_update AFTER UPDATE ON delayq_jobs
  REFERENCING OLD TABLE AS delayq_old_rows NEW TABLE AS delayq_new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION delayq_count_journal_due();
CREATE TRIGGER delayq_count_journal_due_delete AFTER DELETE ON delayq_jobs
  REFERENCING OLD TABLE AS delayq_old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION delayq_count_journal_due();

CREATE FUNCTION delayq_count_journal_due_truncate() RETURNS trigger LANGUAGE plpgsql
  SET search_path FROM CURRENT AS $$
BEGIN
  DELETE FROM delayq_journal_due_hours;
  RETURN NULL;
END
$$;
CREATE TRIGGER delayq_count_journal_due_truncate AFTER TRUNCATE ON delayq_jobs
  FOR EACH STATEMENT EXECUTE FUNCTION delayq_count_journal_due_truncate();

-- The jobs already journaled.
INSERT INTO delayq_journal_due_hours (topic, hour, slot, n)
  SELECT topic, run_at / 3600000, 0, count(*) FROM delayq_jobs
  WHERE loaded = 0 AND state = 'delayed' AND finished_at IS NULL GROUP BY 1, 2;
