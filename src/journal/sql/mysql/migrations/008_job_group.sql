-- delayq SQL journal (MySQL / MariaDB), schema version 8: a job's group (docs/flow-control.md "Groups"), so
-- a restore gives the inner store its jobs with their groups.
ALTER TABLE delayq_jobs ADD COLUMN job_group VARCHAR(128) NULL;
