import type { EpochMs } from '../../core/clock.js';
import type { NewJob } from '../../core/job.js';
import type { DedupClaims, HeldClaim } from '../../store/dedup-claims.js';
import type { Db } from './dialect.js';
import { isDuplicateKey } from './meta-rows.js';

/**
 * Dedup claims in the journal (delayq_dedup_claims): the authority on a journaled store, so the window holds
 * across a wipe of the inner store and for jobs only the journal holds. Each step is one statement, atomic on
 * its row in both dialects: take over an ended claim (or the one named) by a conditional UPDATE, else make one
 * by INSERT (a concurrent insert of the key fails on the primary key), else read the live one.
 */
export class JournalDedupClaims implements DedupClaims {
  private readonly run: <T>(query: (db: Db) => Promise<T>) => Promise<T>;

  constructor(run: <T>(query: (db: Db) => Promise<T>) => Promise<T>) {
    this.run = run;
  }

  async claim(job: NewJob, now: EpochMs, takeOverFrom?: string): Promise<HeldClaim | null> {
    const { topic, id } = job;
    const key = job.dedup!.key;
    const row = { job_id: id, claimed_at: now, expires_at: now + job.dedup!.windowMs };
    // Each round ends in an answer unless the claim changed between two statements: then it looks again.
    for (;;) {
      const taken = await this.run((db) =>
        db
          .updateTable('delayq_dedup_claims')
          .set(row)
          .where('topic', '=', topic)
          .where('dedup_key', '=', key)
          .where((eb) =>
            takeOverFrom === undefined
              ? eb('expires_at', '<=', now)
              : eb.or([eb('expires_at', '<=', now), eb('job_id', '=', takeOverFrom)]),
          )
          .executeTakeFirst(),
      );
      if (Number(taken.numUpdatedRows) === 1) return null;
      const made = await this.run(async (db) => {
        try {
          await db
            .insertInto('delayq_dedup_claims')
            .values({ topic, dedup_key: key, ...row })
            .execute();
          return true;
        } catch (err) {
          if (isDuplicateKey(err)) return false;
          throw err;
        }
      });
      if (made) return null;
      const held = await this.run((db) =>
        db
          .selectFrom('delayq_dedup_claims')
          .select(['job_id', 'claimed_at', 'expires_at'])
          .where('topic', '=', topic)
          .where('dedup_key', '=', key)
          .executeTakeFirst(),
      );
      if (held && Number(held.expires_at) > now && held.job_id !== takeOverFrom)
        return { jobId: held.job_id, claimedAt: Number(held.claimed_at) };
    }
  }

  async release(job: NewJob): Promise<void> {
    await this.run((db) =>
      db
        .deleteFrom('delayq_dedup_claims')
        .where('topic', '=', job.topic)
        .where('dedup_key', '=', job.dedup!.key)
        .where('job_id', '=', job.id)
        .execute(),
    );
  }

  /** Deletes the claims whose window ended before `before`: they answer nothing any more. */
  async purge(before: EpochMs): Promise<void> {
    await this.run((db) => db.deleteFrom('delayq_dedup_claims').where('expires_at', '<', before).execute());
  }
}
