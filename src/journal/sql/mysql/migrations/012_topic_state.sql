-- delayq SQL journal (MySQL / MariaDB), schema version 12: topics' flow-control settings and pauses (kind
-- 'settings': topic → the settings as JSON; kind 'pause': topic, or topic/group, → {"until": ms or null}). In the
-- journal, so a wipe of the inner store keeps them: the restore puts them back (journal/journaled-topic-state.ts).
CREATE TABLE delayq_topic_state (
  kind  VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  name  VARCHAR(400) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (kind, name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
