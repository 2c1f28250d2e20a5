-- Topics' flow-control settings (topic-settings.ts): the settings' JSON per topic.
CREATE TABLE topic_settings (
  topic TEXT PRIMARY KEY,
  settings TEXT NOT NULL
);
