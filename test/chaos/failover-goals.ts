/** What every failover run must show, whatever the topology (the goals), and the load it runs. */
import { expect } from 'vitest';
import { LONG } from './chaos-processes.js';
import type { GroupReport, LoadSpec } from './failover-run.js';
import { UNNOTICEABLE_LOSS } from './failover-detection.js';

/** Fault rounds of the long form (FAILOVER_ROUNDS), one in the short form. */
export const ROUNDS = LONG ? Number(process.env['FAILOVER_ROUNDS'] ?? 3) : 1;

/** Per group: pushes a second, spread of delays, TTR, and load before each fault. */
export const failoverLoad: LoadSpec = LONG
  ? { ratePerSec: 60, delayMaxMs: 2000, ttrMs: 2000, loadMs: 5000 }
  : { ratePerSec: 40, delayMaxMs: 1500, ttrMs: 2000, loadMs: 2000 };

/**
 * delayq processes of a group: 2 with a journal; the journal-less group, which is only measured, runs 1 in
 * the short form to spare the shared 2-core host.
 */
export const groupSize = (journal: unknown): number => (journal || LONG ? 2 : 1);

/** A fault must not keep a group from serving longer than this after it began (failover and repair included). */
export const RECOVERY_BOUND_MS = 60_000;

export function expectFailoverGoals(reports: GroupReport[]): void {
  for (const r of reports) {
    expect(r.acked, `${r.name}: acknowledged pushes`).toBeGreaterThan(50);
    expect(r.early, `${r.name}: early deliveries`).toBe(0);
    expect(r.pushOddAnswers, `${r.name}: push answers other than 2xx/503`).toEqual([]);
    expect(r.pollStuck, `${r.name}: long polls left unanswered`).toBe(0);
    for (const [fault, ms] of Object.entries(r.recoveryMs))
      expect(ms, `${r.name}: time without service after ${fault}`).toBeLessThan(RECOVERY_BOUND_MS);
    // what each process's /ready counts is what it logged
    expect(r.storeWriteLosses, `${r.name}: write losses in /ready and in the logs`).toBe(r.lossNotices.length);
    if (r.name.endsWith('/none')) {
      // without a journal the loss stays, but delayq must say so: every fault that lost jobs was noticed
      for (const [fault, n] of Object.entries(r.lostByFault)) {
        if (n <= UNNOTICEABLE_LOSS) continue;
        const noticed = fault === 'before' ? r.lossNotices.length > 0 : r.detectedMs[fault] !== undefined;
        expect(noticed, `${r.name}: ${n} jobs lost in ${fault}, not noticed`).toBe(true);
      }
      continue;
    }
    expect(r.lost, `${r.name}: acknowledged jobs never delivered`).toEqual([]);
    expect(r.unfinished, `${r.name}: acknowledged jobs never finished`).toEqual([]);
    expect(r.deliveredAfterFinish, `${r.name}: delivered again after an acknowledged finish`).toEqual([]);
    expect(r.resurrectedAfterCancel, `${r.name}: delivered after an acknowledged cancel`).toEqual([]);
    // a reservation is journaled before it is answered: a failover that undid it gives the job back to its holder
    expect(r.overlapping, `${r.name}: jobs held by two consumers at once`).toEqual([]);
  }
}
