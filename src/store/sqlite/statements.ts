import { JOB_VALUES } from './job-row.js';

/** Every SQL statement of the SQLite store, one named constant each; prepared once when the store opens. */
export const SQL = {
  insertJob: `INSERT INTO jobs (id, topic, tag, biz_key, body, state, run_at, priority, ttr_ms, ttl_ms, retry,
      attempts, expire_at, created_at, ready_at, job_group)
    VALUES (@id, @topic, @tag, @bizKey, @body, @state, @runAt, @priority, @ttrMs, @ttlMs, @retry,
      0, @expireAt, @now, @readyAt, @group)
    ON CONFLICT (id) DO NOTHING`,
  getJob: `SELECT * FROM jobs WHERE id = ?`,
  insertHistory: `INSERT INTO job_history (job_id, at, event, state, attempt, node, reason)
    VALUES (?, ?, ?, ?, ?, ?, ?)`,
  /** One history row per item of @items, a JSON array of [jobId, state, attempt], in array order. */
  insertHistoryMany: `INSERT INTO job_history (job_id, at, event, state, attempt, node, reason)
    SELECT value ->> 0, @at, @event, value ->> 1, value ->> 2, @node, @reason FROM json_each(@items)`,
  history: `SELECT at, event, state, attempt, node, reason FROM job_history WHERE job_id = ? ORDER BY seq`,

  toCancelled: `UPDATE jobs SET state = 'cancelled', token = NULL, deadline_at = NULL, expire_at = NULL,
      finished_at = @now WHERE id = @id RETURNING *`,
  toDelayedOrReady: `UPDATE jobs SET state = @state, run_at = @runAt, ready_at = @readyAt, expire_at = @expireAt,
      token = NULL, deadline_at = NULL, last_error = COALESCE(@error, last_error) WHERE id = @id RETURNING *`,
  /** A push with onExists "replace" (sqlite-upsert.ts): the waiting job takes its body and priority. */
  replaceBody: `UPDATE jobs SET body = @body, priority = @priority WHERE id = @id`,
  /** The dedup window (sqlite-dedup.ts): the live claim of a topic's key, and the claim a created job takes. */
  liveDedupClaim: `SELECT job_id FROM dedup_claims WHERE topic = ? AND dedup_key = ? AND expires_at > ?`,
  putDedupClaim: `INSERT INTO dedup_claims (topic, dedup_key, job_id, expires_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (topic, dedup_key) DO UPDATE SET job_id = excluded.job_id, expires_at = excluded.expires_at`,
  purgeDedupClaims: `DELETE FROM dedup_claims WHERE (topic, dedup_key) IN
    (SELECT topic, dedup_key FROM dedup_claims WHERE expires_at <= ? LIMIT ?)`,
  touch: `UPDATE jobs SET deadline_at = @deadlineAt WHERE id = @id RETURNING *`,
  // The token stays: a repeat of the same finish is recognised by it (store.ts, finish).
  /** Fenced in the statement: it changes the row only while the token still holds the reservation. */
  toFinished: `UPDATE jobs SET state = 'finished', deadline_at = NULL, finished_at = @now
      WHERE id = @id AND state = 'reserved' AND token = @token RETURNING *`,
  toDead: `UPDATE jobs SET state = 'dead', token = NULL, deadline_at = NULL, finished_at = @now,
      last_error = COALESCE(@error, last_error), priority = COALESCE(@priority, priority) WHERE id = @id RETURNING *`,
  toReleased: `UPDATE jobs SET state = 'ready', attempts = MAX(attempts - 1, 0), token = NULL, deadline_at = NULL,
      expire_at = CASE WHEN ttl_ms IS NULL THEN NULL ELSE run_at + ttl_ms END, priority = COALESCE(@priority, priority)
      WHERE id = @id RETURNING *`,
  giveAttemptBack: `UPDATE jobs SET attempts = MAX(attempts - 1, 0), priority = COALESCE(@priority, priority)
      WHERE id = @id RETURNING *`,
  toRedriven: `UPDATE jobs SET state = 'ready', attempts = 0, run_at = @now, ready_at = @now, finished_at = NULL,
      expire_at = CASE WHEN ttl_ms IS NULL THEN NULL ELSE @now + ttl_ms END WHERE id = @id AND state = 'dead'
      RETURNING id, topic, attempts`,
  oldestDead: `SELECT id FROM jobs WHERE state = 'dead' AND topic = ? ORDER BY finished_at, id LIMIT ?`,

  /**
   * Reserves the first @count ready jobs in one statement. A token is the call's random base and the row's
   * rowid: unique among the jobs of the call, and a new base every call. Rows come back in no set order.
   */
  reserveOneTopic: `UPDATE jobs SET state = 'reserved', attempts = attempts + 1, token = @base || printf('%08x', rowid),
      reserved_at = @now, deadline_at = @now + COALESCE(@ttrMs, ttr_ms), expire_at = NULL
    WHERE rowid IN (SELECT rowid FROM jobs WHERE state = 'ready' AND topic = @topic
                    ORDER BY priority, run_at, created_at, id LIMIT @count)
    RETURNING ${JOB_VALUES}`,
  reserveTopics: `UPDATE jobs SET state = 'reserved', attempts = attempts + 1, token = @base || printf('%08x', rowid),
      reserved_at = @now, deadline_at = @now + COALESCE(@ttrMs, ttr_ms), expire_at = NULL
    WHERE rowid IN (SELECT rowid FROM jobs WHERE state = 'ready' AND topic IN (SELECT value FROM json_each(@topics))
                    ORDER BY priority, run_at, created_at, id LIMIT @count)
    RETURNING ${JOB_VALUES}`,
  /** The same for one job: `rowid = (…)` skips the set form's fixed cost, worth several single-row statements. */
  reserveFirstOfTopic: `UPDATE jobs SET state = 'reserved', attempts = attempts + 1, token = @base || printf('%08x', rowid),
      reserved_at = @now, deadline_at = @now + COALESCE(@ttrMs, ttr_ms), expire_at = NULL
    WHERE rowid = (SELECT rowid FROM jobs WHERE state = 'ready' AND topic = @topic
                   ORDER BY priority, run_at, created_at, id LIMIT 1)
    RETURNING ${JOB_VALUES}`,
  reserveFirstOfTopics: `UPDATE jobs SET state = 'reserved', attempts = attempts + 1, token = @base || printf('%08x', rowid),
      reserved_at = @now, deadline_at = @now + COALESCE(@ttrMs, ttr_ms), expire_at = NULL
    WHERE rowid = (SELECT rowid FROM jobs WHERE state = 'ready' AND topic IN (SELECT value FROM json_each(@topics))
                   ORDER BY priority, run_at, created_at, id LIMIT 1)
    RETURNING ${JOB_VALUES}`,
  /**
   * Reserves by rowid (group-reserve.ts picks the row). The ttl check repeats the one expireReadyOfTopics
   * made in the same transaction, so the statement stands on its own.
   */
  reserveRow: `UPDATE jobs SET state = 'reserved', attempts = attempts + 1, token = @base || printf('%08x', rowid),
      reserved_at = @now, deadline_at = @now + COALESCE(@ttrMs, ttr_ms), expire_at = NULL
    WHERE rowid = @rowid AND state = 'ready'
    RETURNING ${JOB_VALUES}`,
  /** The rowids of the first @count ready jobs of one topic, or of a JSON array of topics (reserve-rows.ts). */
  readyRowidsOfTopic: `SELECT rowid FROM jobs WHERE state = 'ready' AND topic = @topic
    ORDER BY priority, run_at, created_at, id LIMIT @count`,
  readyRowidsOfTopics: `SELECT rowid FROM jobs WHERE state = 'ready' AND topic IN (SELECT value FROM json_each(@topics))
    ORDER BY priority, run_at, created_at, id LIMIT @count`,
  /** The first ready job of one topic (group-reserve.ts). */
  firstOfTopic: `SELECT rowid, priority, run_at, created_at, id FROM jobs WHERE state = 'ready' AND topic = @topic
    ORDER BY priority, run_at, created_at, id LIMIT 1`,
  /** The first ready job of one topic that is not in a group. */
  firstUngroupedOfTopic: `SELECT rowid, priority, run_at, created_at, id FROM jobs
    WHERE state = 'ready' AND topic = @topic AND job_group IS NULL
    ORDER BY priority, run_at, created_at, id LIMIT 1`,
  /**
   * The first ready job of a topic's next group with ready jobs after @after (in name order; '' for the first),
   * with its group and the group's reserved jobs (`held`): one seek of each group index.
   */
  nextGroupHead: `SELECT rowid, priority, run_at, created_at, id, job_group,
      (SELECT COUNT(*) FROM jobs AS r
        WHERE r.state = 'reserved' AND r.topic = @topic AND r.job_group = j.job_group) AS held
    FROM jobs AS j
    WHERE state = 'ready' AND topic = @topic AND job_group IS NOT NULL AND job_group > @after
    ORDER BY job_group, priority, run_at, created_at, id LIMIT 1`,
  /** Finishes the items of @items (a JSON array of [id, token]) whose token still holds the reservation. */
  finishMany: `UPDATE jobs SET state = 'finished', deadline_at = NULL, finished_at = @now
    FROM (SELECT value ->> 0 AS item_id, value ->> 1 AS item_token FROM json_each(@items)) AS item
    WHERE jobs.id = item.item_id AND jobs.state = 'reserved' AND jobs.token = item.item_token
    RETURNING ${JOB_VALUES}`,
  /** Reserve first expires the asked topics' ready jobs whose ttl ran out, so it never hands one out. */
  expireReadyOfTopics: `UPDATE jobs SET state = 'expired', expire_at = NULL, finished_at = @now
    WHERE state = 'ready' AND expire_at IS NOT NULL AND expire_at <= @now
      AND topic IN (SELECT value FROM json_each(@topics))
    RETURNING id, topic, attempts`,

  promoteDue: `UPDATE jobs SET state = 'ready', ready_at = @now,
      expire_at = CASE WHEN ttl_ms IS NULL THEN NULL ELSE run_at + ttl_ms END
    WHERE rowid IN (SELECT rowid FROM jobs WHERE state = 'delayed' AND run_at <= @now ORDER BY run_at LIMIT @limit)
    RETURNING id, topic, attempts`,
  lapsed: `SELECT id, topic, token, attempts, deadline_at, retry FROM jobs
    WHERE state = 'reserved' AND deadline_at <= ? ORDER BY deadline_at LIMIT ?`,
  expireDue: `UPDATE jobs SET state = 'expired', expire_at = NULL, finished_at = @now
    WHERE id IN (SELECT id FROM jobs WHERE state = 'ready' AND expire_at IS NOT NULL AND expire_at <= @now
                 ORDER BY expire_at LIMIT @limit)
    RETURNING id, topic, attempts`,
  nextDelayed: `SELECT MIN(run_at) AS at FROM jobs WHERE state = 'delayed'`,
  nextDeadline: `SELECT MIN(deadline_at) AS at FROM jobs WHERE state = 'reserved'`,
  nextExpiry: `SELECT MIN(expire_at) AS at FROM jobs WHERE state = 'ready' AND expire_at IS NOT NULL`,

  purgeCandidates: `SELECT id FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ? ORDER BY finished_at LIMIT ?`,
  deleteJob: `DELETE FROM jobs WHERE id = ?`,
  deleteHistory: `DELETE FROM job_history WHERE job_id = ?`,
  deleteNumber: `DELETE FROM job_numbers WHERE id = ?`,

  stats: `SELECT topic, state, n FROM topic_counts WHERE n > 0`,
  /** A push's jobs of one topic and state; moves and deletes are counted by triggers (migration 048). */
  addTopicCount: `INSERT INTO topic_counts (topic, state, n) VALUES (?, ?, ?)
    ON CONFLICT (topic, state) DO UPDATE SET n = n + excluded.n`,
  nextDueOfTopic: `SELECT MIN(run_at) AS at FROM jobs WHERE state = 'delayed' AND topic = ?`,
  /** A push's delayed jobs of one topic and due minute; moves and deletes are counted by triggers (migration 051). */
  addDueMinutes: `INSERT INTO due_minutes (topic, minute, n) VALUES (?, ?, ?)
    ON CONFLICT (topic, minute) DO UPDATE SET n = n + excluded.n`,
} as const;

/** Statements whose rows come back as arrays of JOB_VALUES (better-sqlite3's raw mode). */
export const RAW_STATEMENTS: readonly (keyof typeof SQL)[] = [
  'reserveOneTopic',
  'reserveTopics',
  'reserveFirstOfTopic',
  'reserveFirstOfTopics',
  'finishMany',
  'reserveRow',
];

/** Filters of `list`, in the order they appear in the WHERE clause; a statement is cached per combination. */
export const LIST_FILTERS = [
  ['topic', 'topic = @topic'],
  ['state', 'state = @state'],
  ['bizKey', 'biz_key = @bizKey'],
  ['tag', 'tag = @tag'],
  ['cursor', 'id > @cursor'],
] as const;

export function listSql(present: readonly string[]): string {
  const where = LIST_FILTERS.filter(([name]) => present.includes(name)).map(([, clause]) => clause);
  return `SELECT * FROM jobs ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id LIMIT @limit`;
}
