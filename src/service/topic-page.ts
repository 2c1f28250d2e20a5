/**
 * One page of the topic list (GET /v1/topics): the topics' stats filtered, sorted and cut at a keyset cursor,
 * so a page follows the previous one even when counts moved in between (a topic is never shown twice in one
 * walk; one whose sort key moved past the cursor may be skipped, as in any keyset paging).
 */
import { invalid } from '../core/errors.js';
import { JOB_STATES, type JobState, type TopicStatsWithPause } from '../core/job.js';

export const TOPIC_SORT_KEYS = ['topic', 'nextDueAt', 'total', ...JOB_STATES] as const;
export type TopicSortKey = (typeof TOPIC_SORT_KEYS)[number];
export type SortOrder = 'asc' | 'desc';

export interface TopicPageQuery {
  /** Topics whose name starts with this. */
  prefix?: string | undefined;
  /** Topics whose name contains this (case-insensitive). */
  contains?: string | undefined;
  /** Topics with at least one job in this state. */
  has?: JobState | undefined;
  /** Only paused (true) or only running (false) topics. */
  paused?: boolean | undefined;
  /** @defaultValue 'topic' */
  sort?: TopicSortKey | undefined;
  /** @defaultValue 'asc' for topic and nextDueAt, 'desc' for counts */
  order?: SortOrder | undefined;
  limit: number;
  cursor?: string | undefined;
}

export interface TopicPage {
  topics: TopicStatsWithPause[];
  /** The cursor of the next page; null on the last. */
  next: string | null;
  /** Topics that pass the filters, on every page. */
  total: number;
}

/** A sort key's value: a count, a due time (null: no delayed job, after every time), or the name. */
type SortValue = number | string | null;

const sortValue = (t: TopicStatsWithPause, key: TopicSortKey): SortValue => {
  if (key === 'topic') return t.topic;
  if (key === 'nextDueAt') return t.nextDueAt;
  if (key === 'total') return JOB_STATES.reduce((sum, s) => sum + t.counts[s], 0);
  return t.counts[key];
};

function compareValues(a: SortValue, b: SortValue): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

interface Position {
  sort: TopicSortKey;
  order: SortOrder;
  value: SortValue;
  topic: string;
}

const encodeCursor = (p: Position): string =>
  Buffer.from(JSON.stringify([p.sort, p.order, p.value, p.topic])).toString('base64url');

function decodeCursor(cursor: string, sort: TopicSortKey, order: SortOrder): Position {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid('cursor', "is not a cursor of this list: pass the previous answer's next as it is");
  }
  const [s, o, value, topic] = Array.isArray(parsed) ? (parsed as unknown[]) : [];
  const valueOk = value === null || typeof value === 'number' || typeof value === 'string';
  if (typeof topic !== 'string' || !valueOk || typeof s !== 'string' || typeof o !== 'string')
    throw invalid('cursor', "is not a cursor of this list: pass the previous answer's next as it is");
  if (s !== sort || o !== order)
    throw invalid('cursor', `was made for sort=${s}&order=${o}; ask again with those, or without a cursor`);
  return { sort, order, value: value as SortValue, topic };
}

export const defaultOrder = (sort: TopicSortKey): SortOrder =>
  sort === 'topic' || sort === 'nextDueAt' ? 'asc' : 'desc';

/** Filters, sorts (ties by name) and pages `all`. */
export function pageTopics(all: readonly TopicStatsWithPause[], query: TopicPageQuery): TopicPage {
  const sort = query.sort ?? 'topic';
  const order = query.order ?? defaultOrder(sort);
  const direction = order === 'asc' ? 1 : -1;
  const needle = query.contains?.toLowerCase();
  const matching = all.filter(
    (t) =>
      (query.prefix === undefined || t.topic.startsWith(query.prefix)) &&
      (needle === undefined || t.topic.toLowerCase().includes(needle)) &&
      (query.has === undefined || t.counts[query.has] > 0) &&
      (query.paused === undefined || t.paused === query.paused),
  );
  const compare = (a: { value: SortValue; topic: string }, b: { value: SortValue; topic: string }) =>
    direction * (compareValues(a.value, b.value) || (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0));
  const keyed = matching.map((t) => ({ stats: t, value: sortValue(t, sort), topic: t.topic }));
  keyed.sort(compare);
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, sort, order);
  const start = after === undefined ? 0 : keyed.findIndex((k) => compare(k, after) > 0);
  const rest = start < 0 ? [] : keyed.slice(start);
  const page = rest.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    topics: page.map((k) => k.stats),
    next:
      rest.length > query.limit && last ? encodeCursor({ sort, order, value: last.value, topic: last.topic }) : null,
    total: matching.length,
  };
}
