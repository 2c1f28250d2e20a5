-- delayq SQL journal (PostgreSQL), schema version 5: a bizKey's jobs that live only in the journal
-- (listJournalOnly with a bizKey, merged into GET /v1/jobs?bizKey=) read from an index in id order.
CREATE INDEX delayq_jobs_journal_only_biz_key ON delayq_jobs (biz_key, id) WHERE loaded = 0;
