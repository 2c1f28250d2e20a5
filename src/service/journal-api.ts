/**
 * The journal's calls on the service (`service.journal`): restore after a store loss, restore one job,
 * clear-all and the journal's status. Without a SQL journal the status says so (`available: false`) and
 * the others answer E_CONFLICT.
 */
import { DelayqError } from '../core/errors.js';
import type {
  ClearAllOptions,
  ClearAllSummary,
  JournalOperations,
  JournalStatus,
  RestoreOptions,
  RestoreSummary,
} from '../journal/journal.js';

/** GET /v1/journal: the journal's status, or that the store runs without one. */
export type JournalApiStatus = ({ available: true } & JournalStatus) | { available: false };

export class JournalApi {
  private readonly journaled: JournalOperations | undefined;

  constructor(journaled: JournalOperations | undefined) {
    this.journaled = journaled;
  }

  /** Whether a SQL journal backs the store (restore and clear-all are available). */
  get available(): boolean {
    return this.journaled !== undefined;
  }

  /** The journaled store's operations, for wiring (schedules' restore step, metrics); E_CONFLICT without one. */
  operations(): JournalOperations {
    if (!this.journaled)
      throw new DelayqError('E_CONFLICT', 'this service runs without a SQL journal (journal.kind is not set)');
    return this.journaled;
  }

  /** Puts every unfinished job of the journal back into the store (idempotent). */
  restore(options: RestoreOptions): Promise<RestoreSummary> {
    return this.operations().restore(options);
  }

  /** Puts one job of the journal back into the store. */
  restoreJob(id: string, options: RestoreOptions): Promise<RestoreSummary> {
    return this.operations().restoreJob(id, options);
  }

  /** Cancels every unfinished job (confirmed, audited). */
  clearAll(options: ClearAllOptions): Promise<ClearAllSummary> {
    return this.operations().clearAll(options);
  }

  status(): JournalApiStatus {
    return this.journaled ? { available: true, ...this.journaled.status() } : { available: false };
  }
}
