-- Reserve first expires the asked topics' ready jobs whose ttl ran out (statements.ts, expireReadyOfTopics).
-- Without this index that search walked every ready job of the topic (jobs_ready_order) on each reserve.
CREATE INDEX jobs_ready_expiry_by_topic ON jobs (topic, expire_at) WHERE state = 'ready' AND expire_at IS NOT NULL;
