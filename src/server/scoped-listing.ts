/**
 * Listings for a caller limited to some topics who names no topic (the console's Jobs page, a bizKey search
 * across its topics, the delayed and reserved listings): the listing of each of its topics, merged in the
 * listing's own order, so the answer is the caller's share of the whole listing, page by page, and says
 * nothing of the rest. Each source page starts after the same cursor; the first `limit` of the merge, up to
 * where every source page is complete, are the answer, and the next cursor is in the store's own format.
 */
import type { DelayqService } from '../service/service.js';
import { cursorAfter, idOfCursor } from '../service/job-list-cursor.js';
import { listingCursor, parseListingCursor, type ReservedEntry } from '../store/listings.js';
import type { Job } from '../core/job.js';
import { mayUseTopic, type Principal } from './auth.js';

export interface Paged<T> {
  items: T[];
  next: string | null;
}

/** A listing's order: how two items compare, the cursor that continues after an item, and where cursors stand. */
export interface ListingOrder<T> {
  compare(a: T, b: T): number;
  cursorOf(item: T): string;
  /** Above 0 when the item comes after the place the cursor stands for. */
  compareToCursor(item: T, cursor: string): number;
  compareCursors(a: string, b: string): number;
}

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** GET /v1/jobs: by id; the cursor continues after the last id (job-list-cursor.ts). */
export const BY_ID: ListingOrder<Job> = {
  compare: (a, b) => byText(a.id, b.id),
  cursorOf: (job) => cursorAfter(job.id),
  compareToCursor: (job, cursor) => byText(job.id, idOfCursor(cursor)!),
  compareCursors: (a, b) => byText(idOfCursor(a)!, idOfCursor(b)!),
};

/** (time, id) against a (time, id) cursor (store/listings.ts). */
const byTimeCursor = (at: number, id: string, cursor: string): number => {
  const c = parseListingCursor(cursor)!;
  return at - c.at || byText(id, c.id);
};

/** GET /v1/delayed: by (runAt, id). */
export const BY_DUE_TIME: ListingOrder<Job> = {
  compare: (a, b) => a.runAt - b.runAt || byText(a.id, b.id),
  cursorOf: (job) => listingCursor(job.runAt, job.id),
  compareToCursor: (job, cursor) => byTimeCursor(job.runAt, job.id, cursor),
  compareCursors: (a, b) => {
    const c = parseListingCursor(a)!;
    return byTimeCursor(c.at, c.id, b);
  },
};

/** GET /v1/reserved: by (deadlineAt, id). */
export const BY_DEADLINE: ListingOrder<ReservedEntry> = {
  compare: (a, b) => a.deadlineAt - b.deadlineAt || byText(a.job.id, b.job.id),
  cursorOf: (r) => listingCursor(r.deadlineAt, r.job.id),
  compareToCursor: (r, cursor) => byTimeCursor(r.deadlineAt, r.job.id, cursor),
  compareCursors: BY_DUE_TIME.compareCursors,
};

/** Whether the principal is limited to some topics. */
export function isScoped(principal: Principal | null): principal is Principal & { topicPrefixes: readonly string[] } {
  return principal !== null && principal.topicPrefixes !== null;
}

/** The topics with jobs (the journal's included) that the principal may use. */
export async function topicsInScope(service: DelayqService, principal: Principal): Promise<string[]> {
  return (await service.topics.stats()).map((t) => t.topic).filter((t) => mayUseTopic(principal, t));
}

/**
 * One page of a listing over several topics: `read(topic, limit, cursor)` is one topic's page. A topic's
 * page holds every item up to its `next` (to the end when null), and may hold fewer than `limit` (a store
 * stops looking where a filter matches rarely), so the merge is complete up to the least `next`: the page
 * is the first `limit` items up to there, and continues after its last item, or from that `next`.
 */
export async function pageOverTopics<T>(
  topics: readonly string[],
  limit: number,
  cursor: string | undefined,
  read: (topic: string, limit: number, cursor: string | undefined) => Promise<Paged<T>>,
  order: ListingOrder<T>,
): Promise<Paged<T>> {
  const pages = await Promise.all(topics.map((topic) => read(topic, limit, cursor)));
  let through: string | null = null;
  for (const { next } of pages)
    if (next !== null && (through === null || order.compareCursors(next, through) < 0)) through = next;
  const upTo = through;
  const merged = pages
    .flatMap((p) => p.items)
    .filter((item) => upTo === null || order.compareToCursor(item, upTo) <= 0)
    .sort(order.compare);
  const items = merged.slice(0, limit);
  if (merged.length > limit) return { items, next: order.cursorOf(items[items.length - 1]!) };
  return { items, next: through };
}
