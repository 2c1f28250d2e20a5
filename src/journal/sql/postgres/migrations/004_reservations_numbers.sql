-- delayq SQL journal (PostgreSQL), schema version 4: what a store loss must not change for a client. A reserved
-- job's reservation (token, reserved_at, deadline_at), so a restore gives the job back to its holder, and the
-- job's beanstalkd number (job_number), so a client holding it still names the same job after a restore.
ALTER TABLE delayq_jobs
  ADD COLUMN token TEXT,
  ADD COLUMN reserved_at BIGINT,
  ADD COLUMN deadline_at BIGINT,
  ADD COLUMN job_number BIGINT;
CREATE INDEX delayq_jobs_number ON delayq_jobs (job_number) WHERE job_number IS NOT NULL;
