/**
 * Every Redis key of the store is built here (and nowhere else). All keys of one partition share the
 * hash tag `{prefix:p}` (p: the partition's tag number, which is its index unless the automatic choice on
 * a Cluster picked others: partition-count.ts), so each script touches one Cluster slot; a busy topic spreads over all partitions
 * because a job's partition comes from its id, not its topic.
 *
 * Per partition (tag T = `{prefix:p}`):
 *   T:jobs       hash  id → packed record (binary head, msgpack body, history: record-layout.ts)
 *   T:dueidx     zset  `X#b` → earliest runAt of delayed set `X#b` (the promote index)
 *   T:delayed:X#b zset id → runAt, delayed jobs of topic X in bucket b: small sets stay listpack-encoded,
 *                the smallest encoding, as this set is most of a pending job's memory beyond its record. push.lua picks b from the id's hash and the
 *                topic's delayed count, so the number of buckets follows the backlog (see push.lua);
 *                the record keeps b, so later scripts find the job without recomputing it
 *   T:ready:X    zset  runAt(6 B) + createdAt(6 B) + id → priority, ready jobs of topic X: order (priority, runAt, createdAt, id)
 *   T:dead:X     zset  id → finishedAt, dead jobs of topic X (redrive oldest first)
 *   T:reserved   zset  id → TTR deadline, and a marker member at +inf that keeps it a skiplist (reserve.lua)
 *   T:expiry     zset  id → runAt + ttl, ready jobs with a ttl
 *   T:ended:M    list  ids of the jobs that ended in minute M (epoch ms / 60000), in the order they ended
 *   T:ended:slots zset M → its start (ms): the minutes of the ended log, which purge walks (lua/ended-log.lua)
 *   T:counts     hash  `topic|stateCode` → jobs (stats in O(partitions × topics))
 *   T:topicdue:X zset  `X#b` → earliest runAt of delayed set `X#b`: topic X's entries of the due index, so
 *                its next due time is the first entry (lua/due-index.lua keeps both)
 *   T:due:X      hash  `m<minute>` / `h<hour>` (runAt / 60 000 or / 3 600 000) → delayed jobs of topic X due in
 *                that minute or hour, the due histogram's counters (due-counters.ts; fields at 0 are deleted)
 *   T:ids:X      zset  the bounds of topic X's id pages (score 0, lex order): the directory of its id index
 *   T:idp:X#B    zset  id → 0, topic X's ids from bound B up to the next bound, at most ID_PAGE_ENTRIES (64) so
 *                it stays a listpack; list.lua walks these pages from the cursor (lua/id-index.lua)
 *   T:draining   hash  topic → when a reserve last took jobs of it (promote.lua leaves such a topic's due
 *                jobs to reserve.lua)
 *   T:nodes      hash  node name ↔ small index used in history entries
 *   T:marker     string a value each process remembers: gone or changed means the partition lost its data
 *                (reset-marker.ts)
 * The topic keys (`T:delayed:X`, `T:due:X`, `T:topicdue:X`, `T:ids:X` …) and `T:draining` are the one exception to "keys only in keys.ts": a
 * script that loads a job by id learns its topic from the record, so it appends the topic to `topicPrefix`
 * (ARGV[1]) itself; `draining` is built the same way, by the two scripts that use it.
 * Topics cannot hold braces (core validates them), so a topic never moves a key to another slot.
 */
export interface PartitionKeys {
  /** KEYS[1..6] of every script, in this order. */
  readonly scriptKeys: readonly [
    jobs: string,
    dueIndex: string,
    reserved: string,
    expiry: string,
    ended: string,
    counts: string,
  ];
  readonly jobs: string;
  readonly dueIndex: string;
  readonly reserved: string;
  readonly expiry: string;
  readonly ended: string;
  readonly counts: string;
  readonly nodes: string;
  readonly marker: string;
  /** ARGV[1] of every script: the Lua side appends `delayed:X`, `ready:X` or `dead:X`. */
  readonly topicPrefix: string;
  delayed(topic: string, bucket: number): string;
  ready(topic: string): string;
  dead(topic: string): string;
  topicDue(topic: string): string;
}

/**
 * A RedisStore built without a partition count; also the least a Cluster's automatic count starts from, and
 * the count of Cluster data written before the count was recorded (partition-count.ts).
 */
export const DEFAULT_PARTITIONS = 8;

/** The hash that records the store's partitions (partition-count.ts), under a hash tag of its own. */
export const layoutKey = (prefix: string): string => `{${prefix}:layout}`;
/** Delayed sets per topic and partition while the topic is small; push.lua doubles them as its backlog grows. */
export const DEFAULT_DELAY_BUCKETS = 128;

/** The keys of the partition whose hash tag is `{prefix:tagNumber}`. */
export function partitionKeys(prefix: string, tagNumber: number): PartitionKeys {
  const tag = `{${prefix}:${tagNumber}}:`;
  const k = (name: string): string => tag + name;
  return {
    scriptKeys: [k('jobs'), k('dueidx'), k('reserved'), k('expiry'), k('ended'), k('counts')],
    jobs: k('jobs'),
    dueIndex: k('dueidx'),
    reserved: k('reserved'),
    expiry: k('expiry'),
    ended: k('ended'),
    counts: k('counts'),
    nodes: k('nodes'),
    marker: k('marker'),
    topicPrefix: tag,
    delayed: (topic, bucket) => k(`delayed:${topic}#${bucket}`),
    ready: (topic) => k(`ready:${topic}`),
    dead: (topic) => k(`dead:${topic}`),
    topicDue: (topic) => k(`topicdue:${topic}`),
  };
}

/** The pub/sub channel for cross-process wake-ups (Cluster broadcasts PUBLISH to every node). */
export function wakeChannel(prefix: string): string {
  return `${prefix}:wake`;
}

/**
 * A job's partition: a stable hash of its id (32-bit FNV-1a over UTF-16 code units), so the same id always
 * lands in the same slot. Part of the data layout: changing it (or `partitions`) strands existing jobs.
 */
export function partitionOf(id: string, partitions: number): number {
  return idHash(id) % partitions;
}

function idHash(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Key prefixes may not hold braces (they would change the hash tag) or whitespace. */
export const PREFIX_RE = /^[A-Za-z0-9._:-]{1,64}$/;
