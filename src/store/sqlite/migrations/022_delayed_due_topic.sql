-- The delayed jobs' index carries the topic after the due time, so a count of one topic's delayed jobs over a
-- due-time range (the due histogram, sqlite-due-histogram.ts) reads the index alone, never the rows.
DROP INDEX jobs_delayed_due;
CREATE INDEX jobs_delayed_due ON jobs (run_at, topic) WHERE state = 'delayed';
