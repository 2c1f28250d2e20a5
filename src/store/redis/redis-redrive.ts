import type { EpochMs } from '../../core/clock.js';
import type { RedriveTarget } from '../store.js';
import type { PartitionAccess } from './redis-reads.js';

/** dead → ready, by ids or the topic's oldest `limit`: one script call per partition; peers hear of the ready topics. */
export async function redrive(store: PartitionAccess, target: RedriveTarget, now: EpochMs): Promise<number> {
  const ids = 'ids' in target ? [...target.ids] : await oldestDead(store, target.topic, target.limit);
  const byPartition = new Map<number, string[]>();
  for (const id of ids) {
    const p = store.part(id);
    byPartition.set(p, [...(byPartition.get(p) ?? []), id]);
  }
  const replies = await Promise.all(
    [...byPartition].map(
      ([p, list]) => store.run('redrive', p, [now, store.nodeIndex(p), ...list]) as Promise<[number, ...string[]]>,
    ),
  );
  const topics = new Set(replies.flatMap(([, ...t]) => t));
  if (topics.size) store.madeReady(topics);
  return replies.reduce((sum, [n]) => sum + Number(n), 0);
}

/** The topic's `limit` oldest dead jobs over all partitions (by finishedAt, then id). */
async function oldestDead(store: PartitionAccess, topic: string, limit: number): Promise<string[]> {
  const heads = await store.guard((c) =>
    store.all((p) => c.zrange(store.parts[p]!.dead(topic), 0, String(limit - 1), 'WITHSCORES')),
  );
  const entries: { id: string; at: number }[] = [];
  for (const flat of heads)
    for (let i = 0; i < flat.length; i += 2) entries.push({ id: flat[i]!, at: Number(flat[i + 1]) });
  entries.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1));
  return entries.slice(0, limit).map((e) => e.id);
}
