-- Ready jobs are served priority first, then due time, then arrival (src/store/ready-order.ts).
DROP INDEX jobs_ready_order;
CREATE INDEX jobs_ready_order ON jobs (topic, priority, run_at, created_at, id) WHERE state = 'ready';
-- From now on a finished job keeps the token that finished it (a repeated finish is answered as done).
