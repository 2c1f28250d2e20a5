-- Paused topics (topic-pauses.ts): until is epoch ms, NULL = until resumed.
CREATE TABLE topic_pauses (
  topic TEXT PRIMARY KEY,
  until INTEGER
);
-- Integer job numbers (job-numbers.ts): given once per id, never reused.
CREATE TABLE job_numbers (
  number INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE
);
