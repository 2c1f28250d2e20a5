-- delayq SQL journal (PostgreSQL), schema version 8: the journal-only jobs (loaded = 0: far-future jobs, and
-- ended jobs purged from the inner store) counted per topic and state as their rows change, so /v1/stats reads
-- a few counter rows instead of grouping every journal-only row (seconds at ten million).
-- Each writing connection adds to its own row (slot = its backend pid): two transactions never wait on one
-- counter row, so counting adds no lock between pushes. The reader sums the slots; it folds them into slot 0
-- when they pile up (sql/journal-only-counts.ts).
CREATE TABLE delayq_journal_counts (
  topic TEXT    NOT NULL,
  state TEXT    NOT NULL,
  slot  INTEGER NOT NULL,
  n     BIGINT  NOT NULL,
  PRIMARY KEY (topic, state, slot)
);

-- One statement's changes, netted per topic and state (a row updated in place counts nothing). The functions
-- keep the journal's search_path, so they find its tables whoever writes (an operator's TRUNCATE included).
CREATE FUNCTION delayq_count_journal_only() RETURNS trigger LANGUAGE plpgsql
  SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO delayq_journal_counts (topic, state, slot, n)
      SELECT topic, state, pg_backend_pid(), count(*) FROM delayq_new_rows WHERE loaded = 0
      GROUP BY topic, state ORDER BY topic, state
      ON CONFLICT (topic, state, slot) DO UPDATE SET n = delayq_journal_counts.n + excluded.n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO delayq_journal_counts (topic, state, slot, n)
      SELECT topic, state, pg_backend_pid(), -count(*) FROM delayq_old_rows WHERE loaded = 0
      GROUP BY topic, state ORDER BY topic, state
      ON CONFLICT (topic, state, slot) DO UPDATE SET n = delayq_journal_counts.n + excluded.n;
  ELSE
    INSERT INTO delayq_journal_counts (topic, state, slot, n)
      SELECT topic, state, pg_backend_pid(), sum(d) FROM (
        SELECT topic, state, -1 AS d FROM delayq_old_rows WHERE loaded = 0
        UNION ALL
        SELECT topic, state, 1 AS d FROM delayq_new_rows WHERE loaded = 0
      ) AS changes
      GROUP BY topic, state HAVING sum(d) <> 0 ORDER BY topic, state
      ON CONFLICT (topic, state, slot) DO UPDATE SET n = delayq_journal_counts.n + excluded.n;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER delayq_count_journal_only_insert AFTER INSERT ON delayq_jobs
  REFERENCING NEW TABLE AS delayq_new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION delayq_count_journal_only();
CREATE TRIGGER delayq_count_journal_only_update AFTER UPDATE ON delayq_jobs
  REFERENCING OLD TABLE AS delayq_old_rows NEW TABLE AS delayq_new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION delayq_count_journal_only();
CREATE TRIGGER delayq_count_journal_only_delete AFTER DELETE ON delayq_jobs
  REFERENCING OLD TABLE AS delayq_old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION delayq_count_journal_only();

-- A TRUNCATE of the jobs empties their counts too.
CREATE FUNCTION delayq_count_journal_only_truncate() RETURNS trigger LANGUAGE plpgsql
  SET search_path FROM CURRENT AS $$
BEGIN
  DELETE FROM delayq_journal_counts;
  RETURN NULL;
END
$$;
CREATE TRIGGER delayq_count_journal_only_truncate AFTER TRUNCATE ON delayq_jobs
  FOR EACH STATEMENT EXECUTE FUNCTION delayq_count_journal_only_truncate();

-- The jobs already journaled.
INSERT INTO delayq_journal_counts (topic, state, slot, n)
  SELECT topic, state, 0, count(*) FROM delayq_jobs WHERE loaded = 0 GROUP BY topic, state;

-- A topic's next journal-only due time: the first entry of this index (stats' nextDueAt).
CREATE INDEX delayq_jobs_journal_only_due ON delayq_jobs (topic, run_at) WHERE loaded = 0 AND state = 'delayed';
