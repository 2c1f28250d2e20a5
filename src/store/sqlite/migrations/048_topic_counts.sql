-- Jobs per topic and state, kept in the transaction that moves each job, so GET /v1/stats reads this table
-- (one row per topic and state) instead of grouping every job. Rows at 0 stay; reads skip them. Pushes add
-- their jobs per batch (statements.ts addTopicCount: a trigger per inserted row made a push 2-3x slower);
-- every update of a job's state and every delete goes through the triggers below.
CREATE TABLE topic_counts (
  topic TEXT NOT NULL,
  state TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (topic, state)
) WITHOUT ROWID;

INSERT INTO topic_counts (topic, state, n) SELECT topic, state, COUNT(*) FROM jobs GROUP BY topic, state;

CREATE TRIGGER topic_counts_on_delete AFTER DELETE ON jobs
BEGIN
  UPDATE topic_counts SET n = n - 1 WHERE topic = OLD.topic AND state = OLD.state;
END;

CREATE TRIGGER topic_counts_on_move AFTER UPDATE OF state, topic ON jobs
  WHEN OLD.state <> NEW.state OR OLD.topic <> NEW.topic
BEGIN
  UPDATE topic_counts SET n = n - 1 WHERE topic = OLD.topic AND state = OLD.state;
  INSERT INTO topic_counts (topic, state, n) VALUES (NEW.topic, NEW.state, 1)
    ON CONFLICT (topic, state) DO UPDATE SET n = n + 1;
END;

-- A topic's next due time is the first entry of its delayed jobs here: one index seek per topic.
CREATE INDEX jobs_delayed_topic ON jobs (topic, run_at) WHERE state = 'delayed';
