import { emptyCounts, JOB_STATES, type Job, type TopicStats } from '../core/job.js';
import { addCounts, type DueCounts, type DueHistogramQuery } from '../store/due-histogram.js';
import type { JobPage, JobQuery, Store } from '../store/store.js';
import type { Journal } from './journal.js';
import { isMarker, MARKER_TOPIC, withoutLoaded } from './journal-jobs.js';

// Reads of a journaled store: the inner store first, then the journal for the jobs only it holds.

export async function mergedGet(inner: Store, journal: Journal, id: string): Promise<Job | null> {
  const job = await inner.get(id);
  if (job) return job;
  const row = await journal.get(id);
  return row ? withoutLoaded(row) : null;
}

export async function mergedList(inner: Store, journal: Journal, query: JobQuery): Promise<JobPage> {
  const filter = { topic: query.topic, state: query.state, bizKey: query.bizKey, tag: query.tag };
  const [page, journalOnly] = await Promise.all([
    inner.list({ ...query, limit: query.limit + 1 }),
    journal.listJournalOnly(filter, query.cursor ?? null, query.limit + 1),
  ]);
  return mergeLists(
    page.jobs.filter((j) => !isMarker(j.id)),
    journalOnly.map(withoutLoaded),
    query.limit,
  );
}

export async function mergedStats(inner: Store, journal: Journal): Promise<TopicStats[]> {
  const [stats, journalOnly] = await Promise.all([inner.stats(), journal.statsJournalOnly()]);
  return mergeStats(
    stats.filter((s) => s.topic !== MARKER_TOPIC),
    journalOnly,
  );
}

/** The inner store's delayed jobs plus the journal's beyond the horizon. */
export async function mergedDueHistogram(inner: Store, journal: Journal, query: DueHistogramQuery): Promise<DueCounts> {
  const [counts, journalOnly] = await Promise.all([inner.dueHistogram(query), journal.dueHistogramJournalOnly(query)]);
  return addCounts(counts, journalOnly);
}

/**
 * One page from two sources both ordered by id (the inner store, and the jobs only the journal holds):
 * merged in id order, so the cursor (the last id shown) works for both.
 */
export function mergeLists(inner: readonly Job[], journalOnly: readonly Job[], limit: number): JobPage {
  const byId = new Map<string, Job>();
  for (const job of journalOnly) byId.set(job.id, job);
  for (const job of inner) byId.set(job.id, job); // the inner store's view wins
  const ids = [...byId.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // Each source was asked for limit + 1, so everything up to the limit-th id is known to be complete.
  const jobs = ids.slice(0, limit).map((id) => byId.get(id)!);
  const more = ids.length > limit;
  return { jobs, next: more ? jobs[jobs.length - 1]!.id : null };
}

export function mergeStats(inner: readonly TopicStats[], journalOnly: readonly TopicStats[]): TopicStats[] {
  const byTopic = new Map<string, TopicStats>();
  for (const s of [...inner, ...journalOnly]) {
    const into = byTopic.get(s.topic) ?? { topic: s.topic, counts: emptyCounts(), nextDueAt: null };
    for (const state of JOB_STATES) into.counts[state] += s.counts[state];
    if (s.nextDueAt !== null)
      into.nextDueAt = into.nextDueAt === null ? s.nextDueAt : Math.min(into.nextDueAt, s.nextDueAt);
    byTopic.set(s.topic, into);
  }
  return [...byTopic.values()].sort((a, b) => a.topic.localeCompare(b.topic));
}
