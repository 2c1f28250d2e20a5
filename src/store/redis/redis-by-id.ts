/** The Redis store's protocol transitions and reads: reserve one job by id, the first job of a state, purge with job numbers. */
import type { EpochMs } from '../../core/clock.js';
import { newToken } from '../../core/ids.js';
import type { Job, Reservation } from '../../core/job.js';
import { PEEK_ORDER, type PeekState } from '../peek-order.js';
import type { Outcome, ReserveOptions } from '../store.js';
import { recordToJob } from './job-record.js';
import { decodeRecord } from './record-codec.js';
import { STATE_CODE } from './record-layout.js';
import type { RedisJobNumbers } from './redis-job-numbers.js';
import type { PartitionAccess } from './redis-reads.js';

/** Due-index entries one peek call reads (peek.lua): Redis is never held for a whole index. */
const DUE_INDEX_SLICE = 1000;

export async function reserveJob(
  store: PartitionAccess,
  outcome: (id: string, reply: unknown) => Outcome<Job>,
  id: string,
  now: EpochMs,
  options: ReserveOptions = {},
): Promise<Outcome<Reservation>> {
  const p = store.part(id);
  const token = newToken();
  const reply = await store.run('reserve-job', p, [id, now, options.ttrMs ?? '', store.nodeIndex(p), token], true);
  const result = outcome(id, reply);
  if (!result.ok) return result;
  return { ok: true, value: { job: result.value, token, deadlineAt: result.value.deadlineAt! } };
}

export async function peekNext(store: PartitionAccess, topic: string, state: PeekState): Promise<Job | null> {
  const found = await store.all(async (p) => {
    for (let rank = 0; ; rank += DUE_INDEX_SLICE) {
      const reply = (await store.run('peek', p, [topic, STATE_CODE[state], rank, DUE_INDEX_SLICE], true)) as Buffer[];
      if (reply.length === 0) return null;
      if (reply[0]!.length > 0) return recordToJob(reply[0]!.toString(), decodeRecord(reply[1]!));
    }
  });
  const jobs = found.filter((j): j is Job => j !== null);
  return jobs.length ? jobs.reduce((best, j) => (PEEK_ORDER[state](j, best) < 0 ? j : best)) : null;
}

/** A ready set's score is the job's priority: one ZCOUNT per partition. */
export async function countReady(store: PartitionAccess, topic: string, belowPriority: number): Promise<number> {
  const counts = await store.guard((c) =>
    Promise.all(store.parts.map((part) => c.zcount(part.ready(topic), '-inf', `(${belowPriority}`))),
  );
  return counts.reduce((a, b) => a + b, 0);
}

/**
 * Jobs one purge.lua call deletes at most: Redis answers no other client while a script runs, and a purge of
 * 10,000 in one call (≈ 10 commands a job) held it for over 100 ms.
 */
const PURGE_CHUNK = 500;

/** purge.lua partition by partition, PURGE_CHUNK jobs a call (what is left of `limit`), then the purged jobs' numbers. */
export async function purgeWithNumbers(
  store: PartitionAccess,
  numbers: RedisJobNumbers,
  before: EpochMs,
  limit: number,
): Promise<number> {
  let done = 0;
  for (let p = 0; p < store.parts.length && done < limit; p++) {
    for (;;) {
      const want = Math.min(PURGE_CHUNK, limit - done);
      const ids = (await store.run('purge', p, [before, want])) as string[];
      if (ids.length) await numbers.forget(ids);
      done += ids.length;
      // Fewer than asked: the partition has no more (or its log's next entries were stale: a later purge).
      if (ids.length < want || done >= limit) break;
    }
  }
  return done;
}
