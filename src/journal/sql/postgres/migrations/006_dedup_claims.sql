-- delayq SQL journal (PostgreSQL), schema version 6: the dedup window's claims (store/dedup-claims.ts), a topic's
-- key → the job its first push named, until expires_at. In the journal, so a wipe of the inner store keeps them.
CREATE TABLE delayq_dedup_claims (
  topic      TEXT   NOT NULL,
  dedup_key  TEXT   NOT NULL,
  job_id     TEXT   NOT NULL,
  claimed_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (topic, dedup_key)
);
CREATE INDEX delayq_dedup_claims_expiry ON delayq_dedup_claims (expires_at);
