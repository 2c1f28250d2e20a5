import { emptyCounts, JOB_STATES, type Job, type TopicStats } from '../core/job.js';
import type { JobPage } from '../store/store.js';

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
