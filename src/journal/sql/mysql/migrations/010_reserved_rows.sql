-- delayq SQL journal (MySQL / MariaDB), schema version 10: the rows the journal holds reserved, in id order, so a
-- process's first reconciliation passes (Journal.listReserved) read a batch of them from one range of this index
-- instead of walking every unfinished row (ten million at scale) to find a few reserved ones.
-- MySQL has no partial index: the unfinished rows by state, then id.
CREATE INDEX delayq_jobs_reserved ON delayq_jobs (finished_at, state, id);
