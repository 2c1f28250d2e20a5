/**
 * RedisStore's job-API methods (issue 23). Outcomes and retention live beside the packed record, in
 * per-partition side keys (`T:outcomes` hash id → `token JSON`, `T:retention` hash id → "finishedMs,deadMs",
 * `T:retain` zset: the lazy retention schedule of lua/delete-ended.lua), so the record layout is
 * untouched. The listings read the delayed sets, the reserved set and the records (read only).
 */
import type { EpochMs } from '../../core/clock.js';
import type { JobOutcome, NewOutcome, Retention } from '../../core/job-outcome.js';
import type { Job } from '../../core/job.js';
import { afterCursor, listingCursor, parseListingCursor, reservingNode } from '../listings.js';
import type { DueListQuery, DuePage, ListingCursor, ReservedListQuery, ReservedPage } from '../listings.js';
import type { RedisClient } from './connection.js';
import { recordHistory, recordToJob } from './job-record.js';
import { decodeRecord } from './record-codec.js';
import type { PartitionAccess } from './redis-reads.js';

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

function byPartition(store: PartitionAccess, ids: readonly string[]): Map<number, string[]> {
  const map = new Map<number, string[]>();
  for (const id of ids) {
    const p = store.part(id);
    const list = map.get(p);
    if (list) list.push(id);
    else map.set(p, [id]);
  }
  return map;
}

interface Entry {
  p: number;
  id: string;
  at: EpochMs;
}

/**
 * The first `limit` members of a sorted set after the cursor with scores below `to`: those at the
 * cursor's score with a greater id (Redis orders equal scores by member, bytewise), then the later ones.
 */
async function after(
  c: RedisClient,
  key: string,
  from: EpochMs,
  to: number,
  cursor: ListingCursor | undefined,
  limit: number,
): Promise<{ id: string; at: number }[]> {
  const read = (flat: string[]) => {
    const out: { id: string; at: number }[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ id: flat[i]!, at: Number(flat[i + 1]) });
    return out;
  };
  const upper = to === Infinity ? '(+inf' : `(${to}`;
  if (cursor === undefined || cursor.at < from)
    return read(await c.zrange(key, String(from), upper, 'BYSCORE', 'LIMIT', 0, limit, 'WITHSCORES'));
  const [same, later] = await Promise.all([
    c.zrange(key, String(cursor.at), String(cursor.at), 'BYSCORE', 'WITHSCORES'),
    c.zrange(key, `(${cursor.at}`, upper, 'BYSCORE', 'LIMIT', 0, limit, 'WITHSCORES'),
  ]);
  return [...read(same).filter((e) => e.id > cursor.id), ...read(later)].slice(0, limit);
}

const byTimeThenId = (a: Entry, b: Entry): number => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Records of the chosen entries, one HMGET per partition, in the entries' order (a vanished job is left out). */
async function records(store: PartitionAccess, entries: readonly Entry[]): Promise<(Buffer | null)[]> {
  return store.guard(async (c) => {
    const found = new Map<string, Buffer | null>();
    await Promise.all(
      [
        ...byPartition(
          store,
          entries.map((e) => e.id),
        ),
      ].map(async ([p, ids]) => {
        const bufs = await c.hmgetBuffer(store.parts[p]!.jobs, ...ids);
        ids.forEach((id, i) => found.set(id, bufs[i] ?? null));
      }),
    );
    return entries.map((e) => found.get(e.id) ?? null);
  });
}

/** Every partition's delayed sets of the topic (or all), read after the cursor; merged by (runAt, id). */
export async function listDue(store: PartitionAccess, query: DueListQuery): Promise<DuePage> {
  const cursor = parseListingCursor(query.cursor);
  const want = query.limit + 1;
  const entries = await store.guard((c) =>
    store.all(async (p) => {
      const k = store.parts[p]!;
      const sets = (await c.zrange(k.dueIndex, 0, '-1')).filter(
        (member) => query.topic === undefined || member.slice(0, member.lastIndexOf('#')) === query.topic,
      );
      const found = await Promise.all(
        sets.map((member) => after(c, k.topicPrefix + 'delayed:' + member, query.from, query.to, cursor, want)),
      );
      return found.flat().map((e) => ({ p, ...e }));
    }),
  );
  const chosen = entries.flat().sort(byTimeThenId).slice(0, want);
  const bufs = await records(store, chosen);
  const jobs: Job[] = [];
  chosen.forEach((e, i) => {
    const b = bufs[i];
    if (b) jobs.push(recordToJob(e.id, decodeRecord(b)));
  });
  const page = jobs.filter((j) => j.state === 'delayed').slice(0, query.limit);
  const last = page[page.length - 1];
  return { jobs: page, next: chosen.length > query.limit && last ? listingCursor(last.runAt, last.id) : null };
}

/** Every partition's reserved set (id → TTR deadline) after the cursor, merged by (deadline, id). */
export async function listReserved(store: PartitionAccess, query: ReservedListQuery): Promise<ReservedPage> {
  const cursor = parseListingCursor(query.cursor);
  // With a topic, the records decide which entries count: read every reservation after the cursor.
  const want = query.topic === undefined ? query.limit + 1 : Number.MAX_SAFE_INTEGER;
  const entries = await store.guard((c) =>
    store.all(async (p) =>
      (await after(c, store.parts[p]!.reserved, 0, Infinity, cursor, want)).map((e) => ({ p, ...e })),
    ),
  );
  const sorted = entries.flat().sort(byTimeThenId);
  const bufs = await records(store, sorted.slice(0, want === query.limit + 1 ? want : sorted.length));
  const names = await store.guard((c) => store.all((p) => c.hgetall(store.parts[p]!.nodes)));
  const page: ReservedPage['reservations'] = [];
  let more = false;
  for (let i = 0; i < bufs.length; i++) {
    const b = bufs[i];
    const e = sorted[i]!;
    if (!b || !afterCursor(e.at, e.id, cursor)) continue;
    const r = decodeRecord(b, true);
    const job = recordToJob(e.id, r);
    if (job.state !== 'reserved' || (query.topic !== undefined && job.topic !== query.topic)) continue;
    if (page.length === query.limit) {
      more = true;
      break;
    }
    const history = recordHistory(r, (index) => names[e.p]![`#${index}`] ?? `node#${index}`);
    page.push({ job, deadlineAt: e.at, node: reservingNode(history) });
  }
  const last = page[page.length - 1];
  return { reservations: page, next: more && last ? listingCursor(last.deadlineAt, last.job.id) : null };
}
