-- delayq SQL journal (MySQL / MariaDB), schema version 4: topics of up to 200 characters (beanstalkd's tube
-- name limit; src/core/limits.ts). PostgreSQL keeps topics as TEXT and needs no change.
ALTER TABLE delayq_jobs MODIFY topic VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL;
