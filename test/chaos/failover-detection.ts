/**
 * Whether delayq itself noticed the writes a failover lost: the error lines its Redis store logs
 * ("A FAILOVER LOST ACKNOWLEDGED WRITES", field storeWriteLoss), read back from each server's log file and
 * set against the fault windows.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { FaultWindow } from './failover-run.js';

export interface LossNotice {
  /** Which server of the group logged it (its index). */
  server: number;
  /** When it was logged, epoch ms. */
  at: number;
  shard: string;
  lostBytes: number;
  writesAtMost: number;
}

/** Every write-loss notice in the given server logs (one file per server, in order). */
export function lossNotices(logFiles: string[]): LossNotice[] {
  const notices: LossNotice[] = [];
  logFiles.forEach((file, server) => {
    if (!existsSync(file)) return;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.includes('"storeWriteLoss"')) continue;
      let entry: { time: number; storeWriteLoss: { shard: string; lostBytes: number; writesAtMost: number } };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        continue; // a line cut by a kill
      }
      const { shard, lostBytes, writesAtMost } = entry.storeWriteLoss;
      notices.push({ server, at: entry.time, shard, lostBytes, writesAtMost });
    }
  });
  return notices.sort((a, b) => a.at - b.at);
}

/**
 * Per fault (named as in `recoveryMs`), how long after its start the first notice came (at or after it, in its
 * window or a later one); faults no notice followed are left out.
 */
export function detectionByFault(notices: LossNotice[], faults: FaultWindow[]): Record<string, number> {
  const detected: Record<string, number> = {};
  faults.forEach((f, i) => {
    const first = notices.find((n) => n.at >= f.at);
    if (first) detected[`${i + 1}:${f.name}`] = first.at - f.at;
  });
  return detected;
}

/**
 * A window that lost more jobs than this must have been noticed: below it the loss may lie within one sampling
 * interval of the store's failover watch (100 ms, about 4 pushes at the load's 40/s), which it cannot see.
 */
export const UNNOTICEABLE_LOSS = 5;
