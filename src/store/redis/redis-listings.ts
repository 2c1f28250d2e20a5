/**
 * RedisStore's due-time and reserved listings: they read the delayed sets, the reserved set and the
 * records (read only), merged over the partitions by (time, id) cursors (store/listings.ts).
 */
import type { EpochMs } from '../../core/clock.js';
import type { Job } from '../../core/job.js';
import { afterCursor, listingCursor, parseListingCursor, reservingNode } from '../listings.js';
import type { DueListQuery, DuePage, ListingCursor, ReservedListQuery, ReservedPage } from '../listings.js';
import type { RedisClient } from './connection.js';
import { recordHistory, recordToJob } from './job-record.js';
import { decodeRecord } from './record-codec.js';
import type { PartitionKeys } from './keys.js';
import { byPartition, type PartitionAccess } from './redis-reads.js';

/** A delayed set's entry: a job id and its runAt. */
type Found = { id: string; at: number };

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

const byTimeThenId = (a: Found, b: Found): number => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

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

/** Due-index entries read at a time while walking a partition's delayed sets in head order. */
const HEADS_PER_READ = 8;

const dueIndexOf = (k: PartitionKeys, query: DueListQuery): string =>
  query.topic === undefined ? k.dueIndex : k.topicDue(query.topic);

/** A set's entries in [from, to) after the cursor, at most `want`, for each of `members` (a partition's sets). */
async function readSets(
  c: RedisClient,
  k: PartitionKeys,
  members: readonly string[],
  query: DueListQuery,
  cursor: ListingCursor | undefined,
  want: number,
  to = query.to,
): Promise<Found[]> {
  const got = await Promise.all(
    members.map((member) => after(c, k.topicPrefix + 'delayed:' + member, query.from, to, cursor, want)),
  );
  return got.flat();
}

/**
 * The first `want` delayed entries in [from, to) after the cursor over every partition, from the sets' heads
 * (a set's due-index score is its earliest runAt), or null where the heads cannot tell and each partition's
 * walk must (dueInPartition). Sets whose head is before max(from, cursor) may hold later entries anywhere,
 * so those are all read (none for a first page from now on, as due sets are promoted). Of the others, the
 * first `want` heads over all partitions bound the page: those `want` sets hold `want` entries at or before
 * the last of them, H, so the page is those sets' entries up to H, unless another set starts at H as well
 * or a cursor left fewer (jobs spread over sets by id, not by time, so a page's jobs may come from as many
 * sets as it has jobs). Two round trips however many partitions: the heads, then those sets' entries.
 */
async function fromFirstHeads(
  c: RedisClient,
  store: PartitionAccess,
  query: DueListQuery,
  cursor: ListingCursor | undefined,
  want: number,
): Promise<Entry[] | null> {
  const floor = Math.max(query.from, cursor?.at ?? -Infinity);
  const read = await store.all(async (p) => {
    const index = dueIndexOf(store.parts[p]!, query);
    const [started, flat] = await Promise.all([
      c.zrange(index, '-inf', `(${floor}`, 'BYSCORE'),
      c.zrange(index, String(floor), '+inf', 'BYSCORE', 'LIMIT', 0, want + 1, 'WITHSCORES'),
    ]);
    const heads: { p: number; member: string; head: number }[] = [];
    for (let i = 0; i < flat.length; i += 2) heads.push({ p, member: flat[i]!, head: Number(flat[i + 1]) });
    return { started, heads };
  });
  // Each partition gave its first want + 1 heads, so the first `want` of them all are every partition's
  // first; one not given starts at or after a given one past the first `want`, which the tie test sees.
  const heads = read.flatMap((r) => r.heads).sort((x, y) => x.head - y.head);
  const whole = heads.length <= want;
  const bound = whole ? Infinity : heads[want - 1]!.head;
  if (!whole && heads[want]!.head === bound) return null;
  const sets = read.map((r) => r.started);
  for (const h of heads.slice(0, want)) sets[h.p]!.push(h.member);
  const to = Math.min(query.to, bound + 1);
  const found = (
    await Promise.all(
      sets.map(async (members, p) =>
        (await readSets(c, store.parts[p]!, members, query, cursor, want, to)).map((e) => ({ p, ...e })),
      ),
    )
  ).flat();
  // Every set read, or none left before `to`, or `want` entries at or before H with no other set at H.
  return whole || query.to <= bound || found.length >= want ? found : null;
}

/** One partition's first `want` delayed entries in [from, to) after the cursor, its sets walked in head order. */
async function dueInPartition(
  c: RedisClient,
  k: PartitionKeys,
  query: DueListQuery,
  cursor: ListingCursor | undefined,
  want: number,
): Promise<Found[]> {
  const index = dueIndexOf(k, query);
  const floor = Math.max(query.from, cursor?.at ?? -Infinity);
  const found = await readSets(c, k, await c.zrange(index, '-inf', `(${floor}`, 'BYSCORE'), query, cursor, want);
  found.sort(byTimeThenId).splice(want);
  for (let offset = 0; ; offset += HEADS_PER_READ) {
    const flat = await c.zrange(index, String(floor), '+inf', 'BYSCORE', 'LIMIT', offset, HEADS_PER_READ, 'WITHSCORES');
    const members: string[] = [];
    let done = flat.length < HEADS_PER_READ * 2;
    for (let i = 0; i < flat.length; i += 2) {
      const head = Number(flat[i + 1]);
      // Every entry of this set and of the later ones is at or after `head`.
      if (head >= query.to || (found.length === want && head > found[want - 1]!.at)) {
        done = true;
        break;
      }
      members.push(flat[i]!);
    }
    found.push(...(await readSets(c, k, members, query, cursor, want)));
    found.sort(byTimeThenId).splice(want);
    if (done) return found;
  }
}

/** Every partition's delayed sets of the topic (or all), read in head order after the cursor; merged by (runAt, id). */
export async function listDue(store: PartitionAccess, query: DueListQuery): Promise<DuePage> {
  const cursor = parseListingCursor(query.cursor);
  const want = query.limit + 1;
  const entries = await store.guard(
    async (c) =>
      (await fromFirstHeads(c, store, query, cursor, want)) ??
      (
        await store.all(async (p) =>
          (await dueInPartition(c, store.parts[p]!, query, cursor, want)).map((e) => ({ p, ...e })),
        )
      ).flat(),
  );
  const chosen = entries.sort(byTimeThenId).slice(0, want);
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
