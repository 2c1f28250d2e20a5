import type { EpochMs } from '../../core/clock.js';
import { MAX_ROWS_PER_STATEMENT } from './batch.js';
import type { Db } from './dialect.js';

interface Waiting {
  id: string;
  now: EpochMs;
  resolve(cancelled: boolean): void;
  reject(err: unknown): void;
}

/**
 * The journal's cancels of one event-loop turn go out as one transaction (a bulk cancel's chunk, concurrent
 * cancels of producers): the unfinished ones among them are locked in id order, then marked cancelled
 * together. One statement pair for many jobs instead of one UPDATE each, so a bulk cancel keeps the pool's
 * connections free for the journal writer's commits.
 */
export class JournalCancels {
  private waiting: Waiting[] = [];
  private readonly run: <T>(query: (db: Db) => Promise<T>) => Promise<T>;

  constructor(run: <T>(query: (db: Db) => Promise<T>) => Promise<T>) {
    this.run = run;
  }

  /** Whether this call cancelled the job (false: missing, already terminal, or cancelled by a call before it). */
  cancel(id: string, now: EpochMs): Promise<boolean> {
    return new Promise((resolve, reject) => {
      if (this.waiting.push({ id, now, resolve, reject }) === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const byNow = new Map<EpochMs, Waiting[]>();
    for (const w of this.waiting) {
      const group = byNow.get(w.now);
      if (group) group.push(w);
      else byNow.set(w.now, [w]);
    }
    this.waiting = [];
    for (const [now, group] of byNow) {
      cancelUnfinished(this.run, [...new Set(group.map((w) => w.id))], now).then(
        (cancelled) => {
          // A job named twice in the turn was cancelled by the first of them only.
          for (const w of group) w.resolve(cancelled.delete(w.id));
        },
        (err: unknown) => group.forEach((w) => w.reject(err)),
      );
    }
  }
}

function cancelUnfinished(
  run: <T>(query: (db: Db) => Promise<T>) => Promise<T>,
  ids: string[],
  now: EpochMs,
): Promise<Set<string>> {
  return run((db) =>
    db.transaction().execute(async (trx) => {
      const cancelled = new Set<string>();
      // A busy turn can name more ids than one statement may carry (the drivers' 65,535 parameters).
      for (let i = 0; i < ids.length; i += MAX_ROWS_PER_STATEMENT) {
        const unfinished = (
          await trx
            .selectFrom('delayq_jobs')
            .select('id')
            .where('id', 'in', ids.slice(i, i + MAX_ROWS_PER_STATEMENT))
            .where('finished_at', 'is', null)
            .orderBy('id')
            .forUpdate()
            .execute()
        ).map((r) => r.id);
        if (!unfinished.length) continue;
        await trx
          .updateTable('delayq_jobs')
          .set({ state: 'cancelled', finished_at: now, updated_at: Date.now() })
          .where('id', 'in', unfinished)
          .execute();
        for (const id of unfinished) cancelled.add(id);
      }
      return cancelled;
    }),
  );
}
