-- Outcomes reported by consumers (a finish's result, a fail's error: docs/job-api.md), kept as long as
-- the job's row; deleted with it by purge and by deleteEnded.
CREATE TABLE delayq_job_outcomes (
  job_id     VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
  outcome    MEDIUMTEXT NOT NULL,
  updated_at BIGINT     NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
