import type { Logger } from 'pino';
import type { EpochMs } from '../../core/clock.js';
import type { Reservation } from '../../core/job.js';
import type { KeptReservation, Store } from '../../store/store.js';
import type { JournalJob } from '../journal.js';

/**
 * Reservations the journal keeps (token, reservedAt, deadlineAt, attempts: journaled with each reserve and
 * touch) and the inner store may lose: a wipe loses all of them, a Redis failover the ones made in its lost
 * window. The journal's copy wins, so the holder can still settle the job and nobody else gets it before
 * its deadline: a restore puts the job back reserved (recovery/restore.ts), a reserve that got such a job
 * from the inner store gives it back to its holder (below), and the holder's own settle puts back a
 * reservation the inner store lost before it retries (journaled-store/consumers.ts).
 */

/** How long a restore keeps a job it pushed back delayed before it puts its reservation back on it. */
export const HOLD_BEFORE_RESERVATION_MS = 60_000;

/** The reservation a journal row keeps, or null (not reserved, or journaled before reservations were kept). */
export function keptReservation(row: JournalJob): KeptReservation | null {
  if (row.state !== 'reserved' || !row.token || row.deadlineAt === null || row.reservedAt === null) return null;
  return {
    token: row.token,
    reservedAt: row.reservedAt,
    deadlineAt: row.deadlineAt,
    attempts: row.attempts,
    runAt: row.runAt,
  };
}

/**
 * Where a restore pushes a job whose reservation it puts back right after: delayed past its deadline, so no
 * consumer takes it in between (and, should that second step never come, it is delivered after the hold).
 */
export function heldRunAt(kept: KeptReservation, now: EpochMs): EpochMs {
  return Math.max(kept.deadlineAt, now + HOLD_BEFORE_RESERVATION_MS);
}

/**
 * The reservations of a reserve that the journal shows to belong to another holder: the journal keeps a
 * reservation of the job with a deadline still ahead that the inner store does not know of (its history has
 * no reserve at that instant: a failover lost it). Each goes back to the journal's holder and is not delivered.
 * `rows` are the journal rows of the reserved jobs that are reserved until after `now` (Journal.liveAmong).
 */
export async function withoutLostReservations(
  inner: Store,
  reserved: readonly Reservation[],
  rows: readonly JournalJob[],
  now: EpochMs,
  logger: Logger,
  nodeId: string,
): Promise<Reservation[]> {
  const given = new Set<string>();
  const foreign = new Set<string>();
  for (const row of rows) {
    const kept = keptReservation(row);
    const r = reserved.find((x) => x.job.id === row.id);
    if (!kept || !r || kept.token === r.token || kept.deadlineAt <= now) continue;
    if (await innerMovedOn(inner, row.id, kept)) {
      // The inner store saw the journal's reservation and moved on (a release or a fail the journal has not got
      // yet), and this reservation is its next one. Unless the inner store does not hold this one: then it came
      // from a master that is no longer the inner store's (a stale master answering after a failover, whose
      // writes the new master never sees) while the journal's holder still has the job.
      if (!(await innerHolds(inner, r, nodeId))) foreign.add(row.id);
      continue;
    }
    // Not delivered even if the restore is refused (the job ended meanwhile): this reservation then lapses.
    await inner.restoreReservation(row.id, kept, now, r.token);
    given.add(row.id);
  }
  if (given.size)
    logger.warn(
      { jobs: [...given] },
      'the store handed out jobs the journal holds reserved (a failover lost their reservation): given back to their holders',
    );
  if (foreign.size)
    logger.warn(
      { jobs: [...foreign] },
      'a reserve answered jobs the store does not hold reserved, while the journal keeps them reserved by another holder (a stale master after a failover): not delivered',
    );
  const dropped = new Set([...given, ...foreign]);
  return dropped.size ? reserved.filter((r) => !dropped.has(r.job.id)) : [...reserved];
}

/**
 * Whether the inner store holds the job under this very reservation: reserved at its instant, until its deadline,
 * by this process (the last reserve in its history is this node's). The token is not readable, and two processes
 * can reserve one job in the same millisecond on two masters: the node tells them apart.
 */
async function innerHolds(inner: Store, r: Reservation, nodeId: string): Promise<boolean> {
  const [job, history] = await Promise.all([inner.get(r.job.id), inner.history(r.job.id)]);
  if (job?.state !== 'reserved' || job.reservedAt !== r.job.reservedAt || job.deadlineAt !== r.deadlineAt) return false;
  const reserves = history.filter((h) => h.event === 'reserve');
  return reserves[reserves.length - 1]?.node === nodeId;
}

/**
 * Whether the inner store saw the kept reservation and reserved the job again after it (a release or a failure
 * between them that the journal has not got yet). Reservations keep no token in the history, and two of them can
 * share a millisecond: one entry at the kept instant is not enough, a later reserve must follow it.
 */
async function innerMovedOn(inner: Store, id: string, kept: KeptReservation): Promise<boolean> {
  const history = await inner.history(id);
  const i = history.findIndex((h) => h.at === kept.reservedAt && h.state === 'reserved');
  return i >= 0 && history.slice(i + 1).some((h) => h.event === 'reserve');
}

/** Whether the inner store's history shows the kept reservation (it saw it, whatever came after). */
export async function innerSawReservation(inner: Store, id: string, kept: KeptReservation): Promise<boolean> {
  const history = await inner.history(id);
  return history.some((h) => h.at === kept.reservedAt && h.state === 'reserved');
}
