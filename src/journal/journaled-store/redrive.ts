import type { EpochMs } from '../../core/clock.js';
import type { Job } from '../../core/job.js';
import type { RedriveTarget } from '../../store/store.js';
import type { JournalJob } from '../journal.js';
import { entry, loadedJob, toNewJob } from '../journal-jobs.js';
import type { RestoreContext } from '../recovery/restore.js';

/**
 * Redrive on a journaled store: the inner store first, then the journal (durable). A job dead only in the
 * journal (the inner store lost it) is redriven by pushing it back, ready now.
 */
export async function redriveJournaled(ctx: RestoreContext, target: RedriveTarget, now: EpochMs): Promise<number> {
  const ids = 'ids' in target ? [...target.ids] : await oldestDead(ctx, target.topic, target.limit);
  let count = await ctx.inner.redrive({ ids }, now);
  const journaled: JournalJob[] = [];
  for (const id of ids) {
    const job = await ctx.inner.get(id);
    if (job && job.state === 'ready' && job.attempts === 0 && job.runAt === now) journaled.push(loadedJob(job));
    else if (!job) {
      const row = await ctx.journal.get(id);
      if (row?.state === 'dead') {
        const [pushed] = await ctx.inner.pushMany([{ ...toNewJob(row), runAt: now }], now);
        journaled.push(loadedJob(pushed!.job));
        count++;
      }
    }
  }
  if (journaled.length) {
    await ctx.writer.upsert(
      journaled,
      journaled.map((j) => entry(j, 'redrive', now, ctx.nodeId)),
      { force: true, durable: true },
    );
  }
  return count;
}

async function oldestDead(ctx: RestoreContext, topic: string, limit: number): Promise<string[]> {
  const dead: Job[] = [];
  let cursor: string | undefined;
  do {
    const page = await ctx.inner.list({ topic, state: 'dead', limit: 1000, cursor });
    dead.push(...page.jobs);
    cursor = page.next ?? undefined;
  } while (cursor && dead.length < 100_000);
  dead.sort((a, b) => (a.finishedAt ?? 0) - (b.finishedAt ?? 0) || (a.id < b.id ? -1 : 1));
  return dead.slice(0, limit).map((j) => j.id);
}
