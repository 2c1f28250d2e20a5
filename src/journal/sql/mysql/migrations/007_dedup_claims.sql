-- delayq SQL journal (MySQL / MariaDB), schema version 7: the dedup window's claims (store/dedup-claims.ts), a
-- topic's key → the job its first push named, until expires_at. In the journal, so a wipe of the inner store
-- keeps them.
CREATE TABLE delayq_dedup_claims (
  topic      VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  dedup_key  VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  job_id     VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  claimed_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (topic, dedup_key),
  KEY delayq_dedup_claims_expiry (expires_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
