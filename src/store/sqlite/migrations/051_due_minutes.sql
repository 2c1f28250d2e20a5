-- Delayed jobs per topic and due minute (run_at / 60000), so the due histogram (sqlite-due-histogram.ts) sums
-- counters over its whole minutes instead of walking every delayed job in its range: at 10M delayed jobs over
-- 30 days a 30-day histogram walked 10M index entries. As topic_counts: pushes add their jobs per batch
-- (statements.ts addDueMinutes), moves and deletes go through the triggers below. A row that falls to 0 is
-- deleted, so the table holds the minutes that have delayed jobs, not every minute ever used.
CREATE TABLE due_minutes (
  topic TEXT NOT NULL,
  minute INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (topic, minute)
) WITHOUT ROWID;

INSERT INTO due_minutes (topic, minute, n)
  SELECT topic, run_at / 60000, COUNT(*) FROM jobs WHERE state = 'delayed' GROUP BY 1, 2;

CREATE TRIGGER due_minutes_on_delete AFTER DELETE ON jobs
  WHEN OLD.state = 'delayed'
BEGIN
  UPDATE due_minutes SET n = n - 1 WHERE topic = OLD.topic AND minute = OLD.run_at / 60000;
  DELETE FROM due_minutes WHERE topic = OLD.topic AND minute = OLD.run_at / 60000 AND n <= 0;
END;

CREATE TRIGGER due_minutes_on_move AFTER UPDATE OF state, run_at, topic ON jobs
  WHEN (OLD.state = 'delayed' OR NEW.state = 'delayed')
    AND (OLD.state <> NEW.state OR OLD.topic <> NEW.topic OR OLD.run_at / 60000 <> NEW.run_at / 60000)
BEGIN
  UPDATE due_minutes SET n = n - 1
    WHERE OLD.state = 'delayed' AND topic = OLD.topic AND minute = OLD.run_at / 60000;
  DELETE FROM due_minutes
    WHERE OLD.state = 'delayed' AND topic = OLD.topic AND minute = OLD.run_at / 60000 AND n <= 0;
  INSERT INTO due_minutes (topic, minute, n)
    SELECT NEW.topic, NEW.run_at / 60000, 1 WHERE NEW.state = 'delayed'
    ON CONFLICT (topic, minute) DO UPDATE SET n = n + 1;
END;
