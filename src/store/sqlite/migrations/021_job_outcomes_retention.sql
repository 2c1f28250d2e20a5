-- Outcomes and retention of jobs (docs/job-api.md), beside the jobs table so no transition
-- statement changes. A row exists only for jobs that reported an outcome or asked for a retention.
CREATE TABLE job_extras (
  id               TEXT PRIMARY KEY,
  token            TEXT,               -- the reservation token that reported the outcome
  result           TEXT,               -- JSON text of a finish's result
  error            TEXT,               -- JSON text of a fail's {message, code, details}
  outcome_at       INTEGER,            -- when the outcome was reported
  keep_finished_ms INTEGER,            -- retention once finished (0: keep none; NULL: store-wide)
  keep_dead_ms     INTEGER,            -- retention once dead
  remove_at        INTEGER             -- when the job's own retention runs out (set as it ends)
);
CREATE INDEX job_extras_remove ON job_extras (remove_at) WHERE remove_at IS NOT NULL;

-- The job's own retention starts when it finishes or dies, whichever statement ends it.
CREATE TRIGGER job_extras_on_end AFTER UPDATE OF state ON jobs
  WHEN NEW.state IN ('finished', 'dead') AND OLD.state <> NEW.state
BEGIN
  UPDATE job_extras
    SET remove_at = NEW.finished_at + CASE NEW.state WHEN 'finished' THEN keep_finished_ms ELSE keep_dead_ms END
    WHERE id = NEW.id;
END;

-- An outcome lives as long as its job, however the job is deleted (purge, retention, bulk delete).
CREATE TRIGGER job_extras_on_delete AFTER DELETE ON jobs
BEGIN
  DELETE FROM job_extras WHERE id = OLD.id;
END;
