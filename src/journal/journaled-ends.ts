import type { Logger } from 'pino';
import type { EpochMs } from '../core/clock.js';
import type { Reservation } from '../core/job.js';
import type { Store } from '../store/store.js';
import type { Journal } from './journal.js';

/**
 * The journal's ends win over a reservation. A Redis failover can give the inner store back a job whose finish
 * or cancel it acknowledged and then lost with the old master, while the journal recorded that end durably:
 * such a job is ended again in the inner store and not delivered. Dead jobs are left alone (a redrive revives
 * them in the inner store before the journal). If the journal cannot answer, the reservations are given back
 * and the reserve fails (E_STORE_UNAVAILABLE, as a push does then).
 */
export async function withoutJournaledEnds(
  inner: Store,
  journal: Journal,
  reserved: Reservation[],
  now: EpochMs,
  logger: Logger,
): Promise<Reservation[]> {
  let terminal: string[];
  try {
    terminal = await journal.terminalAmong(reserved.map((r) => r.job.id));
  } catch (err) {
    // Unvouched, a job is given back unchanged rather than delivered: the reserve fails like a push would.
    await Promise.all(reserved.map((r) => inner.release(r.job.id, r.token, now).catch(() => undefined)));
    throw err;
  }
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
      await inner.cancel(id, now, `${row.state} in the journal`).catch(() => undefined);
    }
  }
  if (ended.size)
    logger.warn(
      { jobs: [...ended] },
      'jobs the journal had ended came back in the store (a failover lost their end): ended again, not delivered',
    );
  return reserved.filter((r) => !ended.has(r.job.id));
}
