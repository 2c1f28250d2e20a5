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

/** Due-index entries read at a time while walking a partition's delayed sets in head order. */
const HEADS_PER_READ = 8;

/**
 * One partition's first `want` delayed entries in [from, to) after the cursor. A set's head (its due-index
 * score) is its earliest runAt. Sets whose head is before max(from, cursor) may hold later entries anywhere,
 * so those are all read (none for a first page from now on, as due sets are promoted). Of the others, the
 * first `want` heads bound the page: those `want` sets hold `want` entries at or before the last of them, H,
 * so the page is those sets' entries up to H unless a later set starts at H as well (jobs spread over sets by
 * id, not by time, so the page's jobs may come from as many sets as it has jobs). Their entries up to H are
 * read in one round trip; where another set ties at H, or a cursor left fewer, the walk in head order decides.
 */
async function dueInPartition(
  c: RedisClient,
  k: PartitionKeys,
  query: DueListQuery,
  cursor: ListingCursor | undefined,
  want: number,
): Promise<{ id: string; at: number }[]> {
  const index = query.topic === undefined ? k.dueIndex : k.topicDue(query.topic);
  const floor = Math.max(query.from, cursor?.at ?? -Infinity);
  const found: { id: string; at: number }[] = [];
  const readSets = async (members: string[], to = query.to) => {
    const got = await Promise.all(
      members.map((member) => after(c, k.topicPrefix + 'delayed:' + member, query.from, to, cursor, want)),
    );
    for (const entries of got) found.push(...entries);
    found.sort((x, y) => x.at - y.at || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    found.splice(want);
  };
  const [started, heads] = await Promise.all([
    c.zrange(index, '-inf', `(${floor}`, 'BYSCORE'),
    c.zrange(index, String(floor), '+inf', 'BYSCORE', 'LIMIT', 0, want + 1, 'WITHSCORES'),
  ]);
  const firstSets: string[] = [];
  for (let i = 0; i < Math.min(heads.length, 2 * want); i += 2) firstSets.push(heads[i]!);
  // H, and whether a set past the first `want` starts at H too (it may hold a page entry at H).
  const whole = heads.length <= 2 * want;
  const bound = whole ? Infinity : Number(heads[2 * want - 1]);
  const tieAtBound = !whole && Number(heads[2 * want + 1]) === bound;
  await readSets([...started, ...firstSets], Math.min(query.to, bound + 1));
  // Every set read, or none left before `to`, or `want` entries at or before H with no other set at H.
  if (whole || query.to <= bound || (!tieAtBound && found.length === want)) return found;
  found.length = 0;
  await readSets(started);
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
    await readSets(members);
    if (done) return found;
  }
}

/** Every partition's delayed sets of the topic (or all), read in head order after the cursor; merged by (runAt, id). */
export async function listDue(store: PartitionAccess, query: DueListQuery): Promise<DuePage> {
  const cursor = parseListingCursor(query.cursor);
  const want = query.limit + 1;
  const entries = await store.guard((c) =>
    store.all(async (p) => (await dueInPartition(c, store.parts[p]!, query, cursor, want)).map((e) => ({ p, ...e }))),
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
