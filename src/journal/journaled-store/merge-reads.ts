import { emptyCounts, JOB_STATES, type Job, type TopicStats } from '../../core/job.js';
import { addCounts, type DueCounts, type DueHistogramQuery } from '../../store/due-histogram.js';
import { listingCursor, parseListingCursor, type DueListQuery, type DuePage } from '../../store/listings.js';
import { mergeIdPages } from '../../store/id-pages.js';
import type { JobPage, JobQuery, Store } from '../../store/store.js';
import type { Journal } from '../journal.js';
import { isMarker, MARKER_TOPIC, withoutLoaded } from '../journal-jobs.js';

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
  // Both asked for limit + 1: the journal's rows are complete up to the last when it filled that many.
  const journalJobs = journalOnly.map(withoutLoaded);
  const journalNext = journalJobs.length > query.limit ? journalJobs[journalJobs.length - 1]!.id : null;
  // The inner store's view of a job wins.
  return mergeIdPages(
    [
      { jobs: page.jobs.filter((j) => !isMarker(j.id)), next: page.next },
      { jobs: journalJobs, next: journalNext },
    ],
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

/** The inner store's due-time page merged with the journal's far-future jobs, by (runAt, id). */
export async function mergedListDue(inner: Store, journal: Journal, query: DueListQuery): Promise<DuePage> {
  const cursor = parseListingCursor(query.cursor) ?? { at: Number.MIN_SAFE_INTEGER, id: '' };
  const [page, journalOnly] = await Promise.all([
    inner.listDue({ ...query, limit: query.limit + 1 }),
    journal.listDueJournalOnly({ ...query, at: cursor.at, id: cursor.id, limit: query.limit + 1 }),
  ]);
  const seen = new Set<string>();
  const merged = [...page.jobs, ...journalOnly.map(withoutLoaded)]
    .filter((job) => !seen.has(job.id) && seen.add(job.id))
    .sort((a, b) => a.runAt - b.runAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const jobs = merged.slice(0, query.limit);
  const last = jobs[jobs.length - 1];
  return { jobs, next: merged.length > query.limit && last ? listingCursor(last.runAt, last.id) : null };
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
