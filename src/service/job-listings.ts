/**
 * The due-time and reserved listings on the service (docs/job-api.md): delayed jobs by due time, next to
 * fire first, and reservations by TTR deadline with the node holding each. DelayqService owns one
 * (`service.listings`).
 */
import { invalid } from '../core/errors.js';
import { validateTopic } from '../core/job-input.js';
import { LIMITS } from '../core/limits.js';
import type { DuePage, ReservedPage } from '../store/listings.js';
import type { StoreCalls } from './store-calls.js';

const CURSOR_RE = /^-?\d{1,16}:[A-Za-z0-9._:@+=~-]{1,128}$/;

export class JobListings {
  private readonly host: StoreCalls;

  constructor(host: StoreCalls) {
    this.host = host;
  }

  /** Delayed jobs due in [from, to) (default: from now, 10 years), next to fire first. */
  listDue(query: {
    topic?: string | undefined;
    from?: number | undefined;
    to?: number | undefined;
    limit?: number | undefined;
    cursor?: string | undefined;
  }): Promise<DuePage> {
    return this.host.run(() => {
      const from = query.from ?? 0;
      const to = query.to ?? this.host.now() + LIMITS.maxDelayMs;
      if (from >= to) throw invalid('to', 'must be after from');
      return this.host.store.listDue({
        topic: query.topic === undefined ? undefined : validateTopic(query.topic, 'topic'),
        from,
        to,
        limit: this.pageSize(query.limit),
        cursor: this.cursor(query.cursor),
      });
    });
  }

  /** Reserved jobs, earliest deadline first, with the node holding each. */
  listReserved(query: {
    topic?: string | undefined;
    limit?: number | undefined;
    cursor?: string | undefined;
  }): Promise<ReservedPage> {
    return this.host.run(() =>
      this.host.store.listReserved({
        topic: query.topic === undefined ? undefined : validateTopic(query.topic, 'topic'),
        limit: this.pageSize(query.limit),
        cursor: this.cursor(query.cursor),
      }),
    );
  }

  private pageSize(limit: number | undefined): number {
    const n = limit ?? 100;
    if (!Number.isInteger(n) || n < 1 || n > LIMITS.listingMaxPage)
      throw invalid('limit', `must be an integer from 1 to ${LIMITS.listingMaxPage}`);
    return n;
  }

  private cursor(cursor: string | undefined): string | undefined {
    if (cursor !== undefined && !CURSOR_RE.test(cursor))
      throw invalid('cursor', 'must be a cursor from a previous page');
    return cursor;
  }
}
