-- delayq SQL journal (PostgreSQL), schema version 1. Append-only: never edit a shipped migration; add 002_….sql.
-- The job table: every job with its full body, the source of truth for restore and for far-future jobs.
CREATE TABLE delayq_jobs (
  id          TEXT COLLATE "C" PRIMARY KEY,      -- byte order, so paging by id matches the inner store's
  topic       TEXT     NOT NULL,
  tag         TEXT,
  biz_key     TEXT,
  body        TEXT     NOT NULL,
  state       TEXT     NOT NULL,                 -- last journaled state (promote is not journaled)
  run_at      BIGINT   NOT NULL,
  priority    INTEGER  NOT NULL,
  ttr_ms      INTEGER  NOT NULL,
  ttl_ms      BIGINT,
  retry       TEXT     NOT NULL,                 -- JSON RetryPolicy
  attempts    INTEGER  NOT NULL DEFAULT 0,
  last_error  TEXT,
  created_at  BIGINT   NOT NULL,
  finished_at BIGINT,                            -- set once terminal; NULL = unfinished (restore takes it)
  loaded      SMALLINT NOT NULL,                 -- 1: handed to the inner store; 0: lives only here (tiering)
  push_nonce  TEXT,                              -- which batched INSERT created the row (tells duplicates apart)
  pushed_by   TEXT,                              -- node that pushed it: the job's first history entry lives here
  updated_at  BIGINT   NOT NULL
);
CREATE INDEX delayq_jobs_to_load    ON delayq_jobs (run_at) WHERE loaded = 0 AND finished_at IS NULL;
CREATE INDEX delayq_jobs_unfinished ON delayq_jobs (id)     WHERE finished_at IS NULL;
CREATE INDEX delayq_jobs_ended      ON delayq_jobs (finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX delayq_jobs_journal_only ON delayq_jobs (topic, state, id) WHERE loaded = 0;

-- Every journaled transition (the seeds' job_log): id, event, state, time, node, reason.
CREATE TABLE delayq_job_history (
  seq     BIGSERIAL PRIMARY KEY,
  job_id  TEXT COLLATE "C" NOT NULL,
  at      BIGINT  NOT NULL,
  event   TEXT    NOT NULL,
  state   TEXT    NOT NULL,
  attempt INTEGER NOT NULL,
  node    TEXT    NOT NULL,
  reason  TEXT
);
CREATE INDEX delayq_job_history_job ON delayq_job_history (job_id, seq);

-- Small key/value facts: the inner store's epoch marker, the last restore.
CREATE TABLE delayq_meta (
  name  TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
