-- delayq SQL journal (MySQL / MariaDB), schema version 1. Append-only: never edit a shipped migration.
-- The job table: every job with its full body, the source of truth for restore and for far-future jobs.
CREATE TABLE delayq_jobs (
  id          VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  topic       VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  tag         VARCHAR(256),
  biz_key     VARCHAR(256),
  body        LONGTEXT     NOT NULL,
  state       VARCHAR(16)  NOT NULL,
  run_at      BIGINT       NOT NULL,
  priority    INT          NOT NULL,
  ttr_ms      INT          NOT NULL,
  ttl_ms      BIGINT,
  retry       TEXT         NOT NULL,
  attempts    INT          NOT NULL DEFAULT 0,
  last_error  TEXT,
  created_at  BIGINT       NOT NULL,
  finished_at BIGINT,
  loaded      TINYINT      NOT NULL,
  push_nonce  VARCHAR(32),
  pushed_by   VARCHAR(200),
  updated_at  BIGINT       NOT NULL,
  PRIMARY KEY (id),
  KEY delayq_jobs_to_load (loaded, finished_at, run_at),
  KEY delayq_jobs_unfinished (finished_at, id),
  KEY delayq_jobs_journal_only (loaded, topic, state, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE delayq_job_history (
  seq     BIGINT AUTO_INCREMENT PRIMARY KEY,
  job_id  VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  at      BIGINT      NOT NULL,
  event   VARCHAR(16) NOT NULL,
  state   VARCHAR(16) NOT NULL,
  attempt INT         NOT NULL,
  node    VARCHAR(200) NOT NULL,
  reason  TEXT,
  KEY delayq_job_history_job (job_id, seq)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE delayq_meta (
  name  VARCHAR(64) NOT NULL PRIMARY KEY,
  value TEXT        NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
