import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import type { RestoreMode } from '../recovery/inner-monitor.js';

/** How a JournaledStore names itself, tiers jobs, restores and writes its journal. */
export interface JournaledStoreOptions {
  /** Name of this process in the journal's history. */
  nodeId: string;
  /** Jobs due further away than this stay only in the journal until the loader brings them in. @defaultValue config's journal.horizonMs */
  horizonMs?: number;
  /** What to do when the inner store comes back empty: restore at once, or only report it. @defaultValue config's journal.restoreMode */
  restoreMode?: RestoreMode;
  /** Terminal jobs are purged from the inner store this long after they ended (the journal keeps them). @defaultValue config's journal.innerRetentionMs */
  innerRetentionMs?: number;
  /** Delay allowed to batch asynchronous journal entries (retry, release). @defaultValue 20 ms */
  asyncFlushMs?: number;
  /** Journal batches (transactions) written at once by the group commit. @defaultValue 4 */
  writeConcurrency?: number;
  /** Jobs per page when restoring. @defaultValue 5000 */
  restoreBatchSize?: number;
  /** Unfinished journal rows compared with the inner store per reconciliation pass. @defaultValue config's journal.reconcileBatchSize */
  reconcileBatchSize?: number;
  /** A journal row missing from the inner store is pushed back only once it was not written for this long. @defaultValue config's journal.reconcileSettleMs */
  reconcileSettleMs?: number;
  clock?: Clock;
  logger?: Logger;
}
