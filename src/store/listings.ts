/**
 * The listings operators ask for beside Store.list (what fires next, who holds what): delayed jobs in
 * due-time order (next to fire first) within a due-time range, and reserved jobs with their deadlines and
 * the node that holds them.
 * Both page by an opaque cursor `<time>:<id>` (the last entry's sort key).
 */
import type { EpochMs } from '../core/clock.js';
import type { Job } from '../core/job.js';

export interface DueListQuery {
  topic?: string | undefined;
  /** Due-time range [from, to). */
  from: EpochMs;
  to: EpochMs;
  limit: number;
  cursor?: string | undefined;
}

export interface DuePage {
  /** Delayed jobs ordered by (runAt, id). */
  jobs: Job[];
  next: string | null;
}

export interface ReservedListQuery {
  topic?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

export interface ReservedEntry {
  job: Job;
  deadlineAt: EpochMs;
  /** The node (process) that made the reservation, from the job's history; null when unknown. */
  node: string | null;
}

export interface ReservedPage {
  /** Reserved jobs ordered by (deadlineAt, id). */
  reservations: ReservedEntry[];
  next: string | null;
}

/** A listing cursor: the last entry's time and id. */
export interface ListingCursor {
  at: EpochMs;
  id: string;
}

export const listingCursor = (at: EpochMs, id: string): string => `${at}:${id}`;

/** Parses `<time>:<id>`; undefined when absent. Malformed cursors are refused by the service before. */
export function parseListingCursor(cursor: string | undefined): ListingCursor | undefined {
  if (cursor === undefined) return undefined;
  const colon = cursor.indexOf(':');
  return { at: Number(cursor.slice(0, colon)), id: cursor.slice(colon + 1) };
}

/** True when (at, id) comes after the cursor in listing order. */
export function afterCursor(at: EpochMs, id: string, cursor: ListingCursor | undefined): boolean {
  return cursor === undefined || at > cursor.at || (at === cursor.at && id > cursor.id);
}

/** The node of the last reserve entry in a job's history. */
export function reservingNode(history: readonly { event: string; node: string }[]): string | null {
  for (let i = history.length - 1; i >= 0; i--) if (history[i]!.event === 'reserve') return history[i]!.node;
  return null;
}
