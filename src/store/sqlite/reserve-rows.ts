import type { EpochMs } from '../../core/clock.js';
import type { JobValues } from './job-row.js';
import type { Statements } from './sqlite-reads.js';

/**
 * From this many jobs on, a reserve takes them in one set statement (`rowid IN (…)`); below, one single-row
 * statement a job, since the set form's fixed cost is worth about three of those (docs/performance.md). The
 * jobs there are decide, not the count asked for: a long-poll asking for 100 when one job came ready would
 * pay the set form's cost for one row.
 */
export const SET_RESERVE_FROM = 16;

export interface ReserveParams {
  count: number;
  now: EpochMs;
  /** The call's random token base: a token is the base and the row's rowid. */
  base: string;
  ttrMs: number | null;
}

/** Reserves up to `count` ready jobs of `topics` (`topicList`: the same as JSON), in no set order. */
export function reserveRows(
  stmt: Statements,
  topics: readonly string[],
  topicList: string,
  { count, now, base, ttrMs }: ReserveParams,
): JobValues[] {
  const one = topics.length === 1;
  if (count >= SET_RESERVE_FROM) {
    const probe = { topic: topics[0], topics: topicList, count: SET_RESERVE_FROM };
    const first = (one ? stmt.readyRowidsOfTopic.all(probe) : stmt.readyRowidsOfTopics.all(probe)) as {
      rowid: number;
    }[];
    if (first.length < SET_RESERVE_FROM) {
      const rows: JobValues[] = [];
      for (const { rowid } of first) {
        const row = stmt.reserveRow.get({ rowid, now, base, ttrMs }) as JobValues | undefined;
        if (row) rows.push(row);
      }
      return rows;
    }
    return (
      one
        ? stmt.reserveOneTopic.all({ topic: topics[0], count, now, base, ttrMs })
        : stmt.reserveTopics.all({ topics: topicList, count, now, base, ttrMs })
    ) as JobValues[];
  }
  const first = one ? stmt.reserveFirstOfTopic : stmt.reserveFirstOfTopics;
  const params = one ? { topic: topics[0], now, base, ttrMs } : { topics: topicList, now, base, ttrMs };
  const rows: JobValues[] = [];
  for (let i = 0; i < count; i++) {
    const row = first.get(params) as JobValues | undefined;
    if (!row) break;
    rows.push(row);
  }
  return rows;
}
