-- delayq SQL journal (MySQL / MariaDB), schema version 4: what a store loss must not change for a client. A
-- reserved job's reservation (token, reserved_at, deadline_at), so a restore gives the job back to its holder,
-- and the job's beanstalkd number (job_number), so a client holding it still names the same job after a restore.
ALTER TABLE delayq_jobs
  ADD COLUMN token VARCHAR(64) NULL,
  ADD COLUMN reserved_at BIGINT NULL,
  ADD COLUMN deadline_at BIGINT NULL,
  ADD COLUMN job_number BIGINT NULL;
CREATE INDEX delayq_jobs_number ON delayq_jobs (job_number);
