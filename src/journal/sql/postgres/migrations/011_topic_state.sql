-- delayq SQL journal (PostgreSQL), schema version 11: topics' flow-control settings and pauses (kind 'settings':
-- topic → the settings as JSON; kind 'pause': topic, or topic/group, → {"until": ms or null}). In the journal, so
-- a wipe of the inner store keeps them: the restore puts them back (journal/journaled-topic-state.ts).
CREATE TABLE delayq_topic_state (
  kind  TEXT NOT NULL,
  name  TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (kind, name)
);
