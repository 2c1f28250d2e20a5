/**
 * What RedisStore keeps of a job beside its packed record: the outcome a consumer reported and the job's own
 * retention, in per-partition side keys (`T:outcomes` hash id → `token JSON`, `T:retention` hash id →
 * "finishedMs,deadMs", `T:retain` zset: the lazy retention schedule of lua/delete-ended.lua), so the record
 * layout is untouched; and the deletion of ended jobs by id.
 */
import type { EpochMs } from '../../core/clock.js';
import type { JobOutcome, NewOutcome, Retention } from '../../core/job-outcome.js';
import { byPartition, type PartitionAccess } from './redis-reads.js';

export async function recordOutcome(
  store: PartitionAccess,
  id: string,
  token: string,
  outcome: NewOutcome,
  now: EpochMs,
): Promise<boolean> {
  const kept: JobOutcome = { result: outcome.result, error: outcome.error, at: now };
  return Number(await store.run('record-outcome', store.part(id), [id, token, JSON.stringify(kept)])) === 1;
}

export async function outcomeOf(store: PartitionAccess, id: string): Promise<JobOutcome | null> {
  const reply = (await store.run('outcome', store.part(id), [id])) as [string, number] | null;
  if (!reply) return null;
  const kept = JSON.parse(reply[0]) as JobOutcome;
  return Number(reply[1]) === 1 ? kept : { ...kept, result: null };
}

export async function setRetentionMany(
  store: PartitionAccess,
  ids: readonly string[],
  retention: Retention,
  now: EpochMs,
): Promise<void> {
  const text = (ms: number | null): string => (ms === null ? '' : String(ms));
  await Promise.all(
    [...byPartition(store, ids)].map(([p, list]) =>
      store.run('set-retention', p, [text(retention.finishedMs), text(retention.deadMs), now, ...list]),
    ),
  );
}

export async function purgeRetained(store: PartitionAccess, now: EpochMs, limit: number): Promise<string[]> {
  const ids = await store.all((p) => store.run('delete-ended', p, ['retained', now, limit]) as Promise<string[]>);
  return ids.flat();
}

export async function deleteEndedMany(store: PartitionAccess, ids: readonly string[]): Promise<number> {
  const deleted = await Promise.all(
    [...byPartition(store, ids)].map(
      ([p, list]) => store.run('delete-ended', p, ['ids', ...list]) as Promise<string[]>,
    ),
  );
  return deleted.reduce((sum, list) => sum + list.length, 0);
}
