import type { Kysely } from 'kysely';
import { emptyCounts, type JobState, type TopicStats } from '../../core/job.js';
import { foldCounterSlots } from './counter-slots.js';
import type { JournalDatabase } from './schema.js';

/**
 * Stats of the journal-only jobs (loaded = 0) from delayq_journal_counts, which triggers on delayq_jobs keep
 * as rows change (migrations 008 PostgreSQL / 009 MySQL): a read of a few counter rows per topic and state,
 * whatever the backlog, plus one index probe per topic with journal-only delayed jobs for its next due time.
 */

/** Counter rows beyond one per topic and state before a read folds the writers' slots into slot 0. */
const FOLD_AFTER_EXTRA_ROWS = 256;

export async function journalOnlyStats(
  db: Kysely<JournalDatabase>,
  dialect: 'postgres' | 'mysql',
): Promise<TopicStats[]> {
  const rows = await db
    .selectFrom('delayq_journal_counts')
    .select(['topic', 'state'])
    .select((eb) => [eb.fn.sum<string | number>('n').as('n'), eb.fn.countAll<string | number>().as('slots')])
    .groupBy(['topic', 'state'])
    .execute();
  const byTopic = new Map<string, TopicStats>();
  let slots = 0;
  for (const r of rows) {
    slots += Number(r.slots);
    const n = Number(r.n);
    if (n === 0) continue;
    let s = byTopic.get(r.topic);
    if (!s) byTopic.set(r.topic, (s = { topic: r.topic, counts: emptyCounts(), nextDueAt: null }));
    s.counts[r.state as JobState] += n;
  }
  const delayed = [...byTopic.values()].filter((s) => s.counts.delayed > 0);
  await Promise.all(
    delayed.map(async (s) => {
      // The first entry of delayq_jobs_journal_only_due for the topic.
      const first = await db
        .selectFrom('delayq_jobs')
        .select('run_at')
        .where('loaded', '=', 0)
        .where('topic', '=', s.topic)
        .where('state', '=', 'delayed')
        .orderBy('run_at')
        .limit(1)
        .executeTakeFirst();
      s.nextDueAt = first ? Number(first.run_at) : null;
    }),
  );
  if (slots > rows.length + FOLD_AFTER_EXTRA_ROWS) await foldCounterSlots(db, dialect, 'delayq_journal_counts');
  return [...byTopic.values()];
}
