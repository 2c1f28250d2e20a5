import { emptyCounts, JOB_STATES, type HistoryEntry, type Job, type TopicStats } from '../../core/job.js';
import { mergeIdPages } from '../id-pages.js';
import type { JobPage, JobQuery } from '../store.js';
import type { RedisClient } from './connection.js';
import { nul, recordHistory, recordToJob } from './job-record.js';
import { decodeRecord } from './record-codec.js';
import { STATE_CODE } from './record-layout.js';
import type { PartitionKeys } from './keys.js';
import type { ScriptName } from './scripts.js';

/**
 * What the read side and the timer's side (redis-scheduling.ts) need of RedisStore: its partitions,
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

/** The ids grouped by the partition that holds each. */
export function byPartition(store: PartitionAccess, ids: readonly string[]): Map<number, string[]> {
  const map = new Map<number, string[]>();
  for (const id of ids) {
    const p = store.part(id);
    const list = map.get(p);
    if (list) list.push(id);
    else map.set(p, [id]);
  }
  return map;
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

/**
 * Each partition answers its first limit+1 matches after the cursor, or fewer and where it stopped looking
 * (lua/list.lua); merged, the page is complete up to the least of those (id-pages.ts).
 */
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
  const pages = replies.map(([through, ...flat]): JobPage => {
    const jobs: Job[] = [];
    for (let i = 0; i < flat.length; i += 2) jobs.push(recordToJob(flat[i]!.toString(), decodeRecord(flat[i + 1]!)));
    // A partition that found limit+1 matches is complete up to the last; `through` says so too.
    const stop = through!.toString();
    return { jobs, next: stop === '' ? null : stop };
  });
  return mergeIdPages(pages, query.limit);
}

/**
 * The scripts keep per-topic, per-state counters (`counts`) and each topic's due index (`topicdue:<topic>`,
 * lua/due-index.lua), so this reads one hash per partition and the first entry of each topic's due index
 * that has delayed jobs there: O(partitions × topics), whatever the number of jobs.
 */
export async function topicStats(store: PartitionAccess): Promise<TopicStats[]> {
  const byTopic = new Map<string, TopicStats>();
  const entry = (topic: string): TopicStats => {
    let stats = byTopic.get(topic);
    if (!stats) byTopic.set(topic, (stats = { topic, counts: emptyCounts(), nextDueAt: null }));
    return stats;
  };
  await store.guard((c) =>
    store.all(async (p) => {
      const k = store.parts[p]!;
      const delayedHere: string[] = [];
      for (const [field, n] of Object.entries(await c.hgetall(k.counts))) {
        const cut = field.lastIndexOf('|');
        const state = JOB_STATES[Number(field.slice(cut + 1)) - 1];
        if (!state) continue;
        const topic = field.slice(0, cut);
        entry(topic).counts[state] += Number(n);
        if (state === 'delayed' && Number(n) > 0) delayedHere.push(topic);
      }
      const heads = await Promise.all(delayedHere.map((topic) => c.zrange(k.topicDue(topic), 0, '0', 'WITHSCORES')));
      delayedHere.forEach((topic, i) => {
        const at = heads[i]![1];
        const stats = entry(topic);
        if (at !== undefined && (stats.nextDueAt === null || Number(at) < stats.nextDueAt))
          stats.nextDueAt = Number(at);
      });
    }),
  );
  return [...byTopic.values()]
    .filter((s) => Object.values(s.counts).some((n) => n > 0))
    .sort((a, b) => a.topic.localeCompare(b.topic));
}
