-- delayq SQL journal (MySQL / MariaDB), schema version 6: a bizKey's jobs that live only in the journal
-- (listJournalOnly with a bizKey, merged into GET /v1/jobs?bizKey=) read from an index in id order.
-- MySQL has no partial index: `loaded` is the second column, so the read is one range of the index.
CREATE INDEX delayq_jobs_biz_key ON delayq_jobs (biz_key, loaded, id);
