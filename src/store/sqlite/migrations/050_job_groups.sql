-- A job's group (docs/flow-control.md "Groups"): a topic's groupConcurrency bounds each group's reserved jobs.
ALTER TABLE jobs ADD COLUMN job_group TEXT;

-- A topic's ready jobs by group (no group first), each group in the ready order: reserve on a topic with
-- groupConcurrency takes the first job without a group and walks the groups in turn, one seek each.
CREATE INDEX jobs_ready_group ON jobs (topic, job_group, priority, run_at, created_at, id) WHERE state = 'ready';

-- Each group's reserved jobs, counted against its topic's groupConcurrency.
CREATE INDEX jobs_reserved_group ON jobs (topic, job_group) WHERE state = 'reserved' AND job_group IS NOT NULL;
