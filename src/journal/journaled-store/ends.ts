import type { Logger } from 'pino';
import type { EpochMs } from '../../core/clock.js';
import type { Reservation } from '../../core/job.js';
import type { Store } from '../../store/store.js';
import type { Journal, JournalJob } from '../journal.js';
import { withoutLostReservations } from './kept-reservations.js';

/**
 * The journal wins over a reservation the inner store just made: its ends, and its own reservations
 * (journaled-store/kept-reservations.ts: a job a failover gave back without its reservation goes back to its holder). A
 * Redis failover can give the inner store back a job whose finish
 * or cancel it acknowledged and then lost with the old master, while the journal recorded that end durably:
 * such a job is ended again in the inner store and not delivered. Dead jobs are left alone (a redrive revives
 * them in the inner store before the journal). If the journal cannot answer, the reservations are given back
 * and the reserve fails (E_STORE_UNAVAILABLE, as a push does then).
 */
export async function checkedByJournal(
  inner: Store,
  journal: Journal,
  reserved: Reservation[],
  now: EpochMs,
  logger: Logger,
  nodeId: string,
): Promise<Reservation[]> {
  let rows: JournalJob[];
  try {
    rows = await journal.endedOrReservedAmong(
      reserved.map((r) => r.job.id),
      now,
    );
  } catch (err) {
    // Unvouched, a job is given back unchanged rather than delivered: the reserve fails like a push would.
    await giveBack(inner, reserved, now);
    throw err;
  }
  try {
    return await resolvedByJournal(inner, journal, reserved, rows, now, logger, nodeId);
  } catch (err) {
    await giveBack(inner, reserved, now);
    throw err;
  }
}

/**
 * The reservations as the journal's rows of them decide (`rows`: the ended ones, and those reserved until after
 * `now`, Journal.endedOrReservedAmong; `nodeId`: this process): the ended are ended again and not delivered, the ones the journal keeps
 * for another holder go back to that holder (kept-reservations.ts); the rest are answered.
 */
export async function resolvedByJournal(
  inner: Store,
  journal: Journal,
  reserved: Reservation[],
  rows: readonly JournalJob[],
  now: EpochMs,
  logger: Logger,
  nodeId: string,
): Promise<Reservation[]> {
  if (!rows.length) return reserved;
  const terminal = rows.filter((r) => r.finishedAt !== null).map((r) => r.id);
  const kept = await withoutEnds(inner, journal, reserved, terminal, now, logger);
  const live = rows.filter((r) => r.finishedAt === null);
  if (!live.length) return kept;
  return withoutLostReservations(inner, kept, live, now, logger, nodeId);
}

export async function giveBack(inner: Store, reserved: readonly Reservation[], now: EpochMs): Promise<void> {
  await Promise.all(reserved.map((r) => inner.release(r.job.id, r.token, now).catch(() => undefined)));
}

async function withoutEnds(
  inner: Store,
  journal: Journal,
  reserved: Reservation[],
  terminal: readonly string[],
  now: EpochMs,
  logger: Logger,
): Promise<Reservation[]> {
  if (!terminal.length) return reserved;
  const ended = new Set<string>();
  for (const id of terminal) {
    const r = reserved.find((x) => x.job.id === id)!;
    const row = await journal.get(id).catch(() => undefined);
    if (row === undefined) {
      // the journal stopped answering: given back unchanged, not delivered
      ended.add(id);
      await inner.release(id, r.token, now).catch(() => undefined);
      continue;
    }
    if (!row || row.state === 'dead') continue;
    ended.add(id);
    // Ended again as the journal has it; a failure here only means the job comes back and is caught again.
    if (row.state === 'finished') await inner.finish(id, r.token, now).catch(() => undefined);
    else {
      await inner.release(id, r.token, now).catch(() => undefined);
      await inner.cancel(id, now, { reason: `${row.state} in the journal` }).catch(() => undefined);
    }
  }
  if (ended.size)
    logger.warn(
      { jobs: [...ended] },
      'jobs the journal had ended came back in the store (a failover lost their end): ended again, not delivered',
    );
  return reserved.filter((r) => !ended.has(r.job.id));
}
