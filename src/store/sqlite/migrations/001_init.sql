-- delayq embedded store, schema version 1. Append-only: never edit a shipped migration; add 002_….sql.
CREATE TABLE jobs (
  id          TEXT PRIMARY KEY,
  topic       TEXT    NOT NULL,
  tag         TEXT,
  biz_key     TEXT,
  body        TEXT    NOT NULL,              -- JSON text
  state       TEXT    NOT NULL,              -- delayed | ready | reserved | finished | dead | cancelled | expired
  run_at      INTEGER NOT NULL,              -- epoch ms the job is due
  priority    INTEGER NOT NULL,
  ttr_ms      INTEGER NOT NULL,
  ttl_ms      INTEGER,
  retry       TEXT    NOT NULL,              -- JSON RetryPolicy
  attempts    INTEGER NOT NULL DEFAULT 0,
  last_error  TEXT,
  token       TEXT,                          -- reservation token while reserved
  deadline_at INTEGER,                       -- TTR deadline while reserved
  expire_at   INTEGER,                       -- run_at + ttl_ms while ready with a ttl
  created_at  INTEGER NOT NULL,
  ready_at    INTEGER,
  reserved_at INTEGER,
  finished_at INTEGER                        -- when it reached a terminal state
);

-- One partial index per timed state: the timer's queries read only the head of each.
CREATE INDEX jobs_delayed_due   ON jobs (run_at)                      WHERE state = 'delayed';
CREATE INDEX jobs_ready_order   ON jobs (topic, run_at, priority, id) WHERE state = 'ready';
CREATE INDEX jobs_reserved_ttr  ON jobs (deadline_at)                 WHERE state = 'reserved';
CREATE INDEX jobs_ready_expiry  ON jobs (expire_at)                   WHERE state = 'ready' AND expire_at IS NOT NULL;
CREATE INDEX jobs_ended         ON jobs (finished_at)                 WHERE finished_at IS NOT NULL;
-- Listing. Deliberately not keyed on state: an index entry that moves on every transition costs every
-- transition a b-tree update, while listing by state is an occasional operator query.
CREATE INDEX jobs_topic         ON jobs (topic, id);
CREATE INDEX jobs_biz_key       ON jobs (biz_key, id)                 WHERE biz_key IS NOT NULL;
CREATE INDEX jobs_tag           ON jobs (tag, id)                     WHERE tag IS NOT NULL;

-- Every transition of every job (the seeds' job_log).
CREATE TABLE job_history (
  seq     INTEGER PRIMARY KEY,               -- rowid: insertion order (no AUTOINCREMENT: one page less per write)
  job_id  TEXT    NOT NULL,
  at      INTEGER NOT NULL,
  event   TEXT    NOT NULL,
  state   TEXT    NOT NULL,
  attempt INTEGER NOT NULL,
  node    TEXT    NOT NULL,
  reason  TEXT
);
CREATE INDEX job_history_job ON job_history (job_id, seq);
