-- delayq SQL journal (PostgreSQL), schema version 9: the rows the journal holds reserved, in id order, so a
-- process's first reconciliation passes (Journal.listReserved) read a batch of them from this index instead of
-- walking every unfinished row (ten million at scale) to find a few reserved ones.
-- Built CONCURRENTLY, so writers of a large journal go on meanwhile; a build that failed half way leaves an
-- invalid index, dropped here when the migration runs again.
DROP INDEX IF EXISTS delayq_jobs_reserved;
CREATE INDEX CONCURRENTLY delayq_jobs_reserved ON delayq_jobs (id) WHERE state = 'reserved' AND finished_at IS NULL;
