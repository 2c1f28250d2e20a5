import { emptyCounts, JOB_STATES, type HistoryEntry, type Job, type TopicStats } from '../../core/job.js';
import type { JobPage, JobQuery } from '../store.js';
import type { RedisClient } from './connection.js';
import { nul, recordHistory, recordToJob } from './job-record.js';
import { decodeRecord } from './record-codec.js';
import { STATE_CODE } from './record-layout.js';
import type { PartitionKeys } from './keys.js';
import type { ScriptName } from './scripts.js';

/**
 * What the read side and the scheduler side (redis-scheduling.ts) need of RedisStore: its partitions,
 * scripts and commands run on them, this process's node index in each, and the wake-up bus.
 */
export interface PartitionAccess {
  readonly parts: readonly PartitionKeys[];
  part(id: string): number;
  /** With `buffers`, bulk strings come back as Buffers (replies that carry stored records). */
  run(
    name: ScriptName,
    partition: number,
    args: readonly (string | number | Buffer)[],
    buffers?: boolean,
  ): Promise<unknown>;
  guard<T>(fn: (client: RedisClient) => Promise<T>): Promise<T>;
  all<T>(fn: (partition: number) => Promise<T>): Promise<T[]>;
  nodeIndex(partition: number): number;
  /** Tells peers' long-polls that these topics got ready jobs. */
  madeReady(topics: Iterable<string>): void;
}

export async function readJob(store: PartitionAccess, id: string): Promise<Job | null> {
  const record = (await store.run('get', store.part(id), [id], true)) as Buffer | null;
  return record ? recordToJob(id, decodeRecord(record)) : null;
}

export async function readHistory(store: PartitionAccess, id: string): Promise<HistoryEntry[]> {
  const p = store.part(id);
  const record = (await store.run('get', p, [id], true)) as Buffer | null;
  if (!record) return [];
  const names = await store.guard((c) => c.hgetall(store.parts[p]!.nodes));
  return recordHistory(decodeRecord(record, true), (index) => names[`#${index}`] ?? `node#${index}`);
}

/** Each partition returns its first limit+1 matches after the cursor; the merge keeps the first `limit`. */
export async function listJobs(store: PartitionAccess, query: JobQuery): Promise<JobPage> {
  const args = [
    nul(query.topic),
    query.state ? STATE_CODE[query.state] : '',
    nul(query.bizKey),
    nul(query.tag),
    query.cursor ?? '',
    '',
    query.limit,
  ];
  const replies = (await store.all((p) => store.run('list', p, args, true))) as Buffer[][];
  const jobs: Job[] = [];
  for (const flat of replies)
    for (let i = 0; i < flat.length; i += 2) jobs.push(recordToJob(flat[i]!.toString(), decodeRecord(flat[i + 1]!)));
  jobs.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const page = jobs.slice(0, query.limit);
  return { jobs: page, next: jobs.length > query.limit ? page[page.length - 1]!.id : null };
}

/**
 * The scripts keep per-topic, per-state counters, so this is O(partitions × topics) for the counts; the
 * next due time per topic comes from the due index, one entry per delayed set (about one per 40–80 jobs).
 */
export async function topicStats(store: PartitionAccess): Promise<TopicStats[]> {
  const replies = await store.guard((c) =>
    store.all((p) =>
      Promise.all([c.hgetall(store.parts[p]!.counts), c.zrange(store.parts[p]!.dueIndex, 0, '-1', 'WITHSCORES')]),
    ),
  );
  const byTopic = new Map<string, TopicStats>();
  const entry = (topic: string): TopicStats => {
    let stats = byTopic.get(topic);
    if (!stats) byTopic.set(topic, (stats = { topic, counts: emptyCounts(), nextDueAt: null }));
    return stats;
  };
  for (const [counts, heads] of replies) {
    for (const [field, n] of Object.entries(counts)) {
      const cut = field.lastIndexOf('|');
      const state = JOB_STATES[Number(field.slice(cut + 1)) - 1];
      if (state) entry(field.slice(0, cut)).counts[state] += Number(n);
    }
    for (let i = 0; i < heads.length; i += 2) {
      const member = heads[i]!; // `<topic>#<bucket>`
      const stats = entry(member.slice(0, member.lastIndexOf('#')));
      const at = Number(heads[i + 1]);
      if (stats.nextDueAt === null || at < stats.nextDueAt) stats.nextDueAt = at;
    }
  }
  return [...byTopic.values()]
    .filter((s) => Object.values(s.counts).some((n) => n > 0))
    .sort((a, b) => a.topic.localeCompare(b.topic));
}
