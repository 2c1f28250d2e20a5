/**
 * Pages of the job listing (Store.list: id order) from several sources merged into one: a store's
 * partitions, or a store and its journal. A source page holds every match after the cursor up to its
 * `next` (to the end when null), and may end early, holding fewer jobs than asked, when its source
 * stopped looking; so the merge is complete only up to the least `next`, and continues from there.
 */
import type { Job } from '../core/job.js';
import type { JobPage } from './store.js';

const byId = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The first `limit` jobs of the sources' pages in id order; a job in several sources is taken from the first. */
export function mergeIdPages(sources: readonly JobPage[], limit: number): JobPage {
  let through: string | null = null;
  for (const { next } of sources) if (next !== null && (through === null || next < through)) through = next;
  const jobs = new Map<string, Job>();
  for (const source of sources)
    for (const job of source.jobs)
      if ((through === null || job.id <= through) && !jobs.has(job.id)) jobs.set(job.id, job);
  const ids = [...jobs.keys()].sort(byId);
  const page = ids.slice(0, limit).map((id) => jobs.get(id)!);
  if (ids.length > limit) return { jobs: page, next: page[page.length - 1]!.id };
  return { jobs: page, next: through };
}
