-- delayq SQL journal (PostgreSQL), schema version 10: the unfinished rows handed to the inner store (loaded = 1),
-- by id, so a full restore after the inner store's loss (Journal.listLoaded) pages through these only, not through
-- the journal-only rows beyond the horizon (a year of far-future jobs), which the loader brings in when they near.
-- Built CONCURRENTLY, so writers of a large journal go on meanwhile; a build that failed half way leaves an
-- invalid index, dropped here when the migration runs again.
DROP INDEX IF EXISTS delayq_jobs_loaded;
CREATE INDEX CONCURRENTLY delayq_jobs_loaded ON delayq_jobs (id) WHERE loaded = 1 AND finished_at IS NULL;
