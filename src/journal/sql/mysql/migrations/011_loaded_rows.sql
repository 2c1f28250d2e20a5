-- delayq SQL journal (MySQL / MariaDB), schema version 11: the unfinished rows handed to the inner store
-- (loaded = 1), by id, so a full restore after the inner store's loss (Journal.listLoaded) reads one range of this
-- index, not the journal-only rows beyond the horizon (a year of far-future jobs), which the loader brings in when
-- they near. MySQL has no partial index: loaded, then finished_at (NULL while unfinished), then id.
CREATE INDEX delayq_jobs_loaded ON delayq_jobs (loaded, finished_at, id);
