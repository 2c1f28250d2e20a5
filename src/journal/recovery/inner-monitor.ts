import type { Logger } from 'pino';
import type { EpochMs } from '../../core/clock.js';
import type { Store } from '../../store/store.js';
import type { StoreNoticeListener } from '../../store/store-notices.js';
import type { InnerCheck, Journal, JournalStatus, RestoreMode, RestoreSummary } from '../journal.js';
import { MARKER_ID, markerJob } from '../journal-jobs.js';

export type { InnerCheck, JournalStatus, RestoreMode };

const MARKER_META = 'inner-marker';

/**
 * Notices when the inner store came back empty: the marker job (written after the first start and after
 * each full restore) is gone after FLUSHALL, a restart without persistence, or a failover to an empty
 * replica. The journal remembers that a marker was written, so a first start is not mistaken for a loss.
 */
export class InnerMonitor {
  private readonly inner: Store;
  private readonly journal: Journal;
  private readonly mode: RestoreMode;
  private readonly logger: Logger;
  private readonly restore: (now: EpochMs) => Promise<RestoreSummary>;
  private readonly afterWriteLoss: () => void;
  private state: JournalStatus['inner'] = 'unchecked';
  private lastCheckAt: EpochMs | null = null;
  private lostSince: EpochMs | null = null;
  private lastRestore: RestoreSummary | null = null;
  private running: Promise<InnerCheck> | undefined;

  constructor(
    inner: Store,
    journal: Journal,
    mode: RestoreMode,
    logger: Logger,
    restore: (now: EpochMs) => Promise<RestoreSummary>,
    afterWriteLoss: () => void,
  ) {
    this.inner = inner;
    this.journal = journal;
    this.mode = mode;
    this.logger = logger;
    this.restore = restore;
    this.afterWriteLoss = afterWriteLoss;
  }

  /** One check at a time; concurrent callers share it. */
  check(now: EpochMs): Promise<InnerCheck> {
    this.running ??= this.runCheck(now).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /**
   * The inner store's notices reach `listener`; a reset it noticed (its own markers, checked every second
   * and at each reconnect) also starts a check at once, so auto mode restores without waiting for the loader,
   * and a failover's write loss calls `afterWriteLoss` (reconciliation then repairs it sooner).
   */
  forwardNotices(listener: StoreNoticeListener, now: () => EpochMs): void {
    this.inner.notices({
      onWarning: (warning) => listener.onWarning(warning),
      // reconciliation compares every unfinished journal row with the inner store: it only makes haste
      onWriteLoss: (loss) => {
        listener.onWriteLoss(loss);
        this.afterWriteLoss();
      },
      onReset: (reset) => {
        listener.onReset(reset);
        void this.check(now()).catch((err: unknown) =>
          this.logger.error({ err }, 'checking the inner store after a reset failed; the loader retries'),
        );
      },
    });
  }

  async settled(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  private async runCheck(now: EpochMs): Promise<InnerCheck> {
    this.lastCheckAt = now;
    const markerSeen = (await this.journal.getMeta(MARKER_META)) !== null;
    // In auto mode a 'lost' state with the marker back means a restore failed half-way: restore again.
    if ((await this.inner.get(MARKER_ID)) && !(this.state === 'lost' && this.mode === 'auto')) {
      // A journal that never saw the marker (new, or emptied) learns of it, so a later loss is not taken for a first start.
      if (!markerSeen) await this.journal.setMeta(MARKER_META, String(now));
      if (this.state !== 'lost') this.state = 'ok';
      return this.state === 'lost' ? 'lost' : 'ok';
    }
    if (!markerSeen) {
      await this.writeMarker(now);
      this.state = 'ok';
      return 'fresh';
    }
    this.lostSince ??= now;
    if (this.mode === 'manual') {
      if (this.state !== 'lost') {
        this.logger.error(
          { lostSince: new Date(this.lostSince).toISOString() },
          'THE INNER STORE LOST ITS DATA (journal marker missing). Jobs are safe in the journal but will not be delivered until an operator runs restore.',
        );
      }
      this.state = 'lost';
      return 'lost';
    }
    this.state = 'restoring';
    this.logger.warn('the inner store lost its data (journal marker missing): restoring from the journal');
    try {
      const summary = await this.restore(now);
      this.logger.warn({ summary }, 'restore from the journal done');
      return 'restored';
    } catch (err) {
      this.state = 'lost';
      throw err;
    }
  }

  /**
   * Before a full restore: the marker goes back FIRST. If the inner store loses its data again while the
   * restore runs (a second FLUSHALL, a restart), the marker is gone again and the next check restores
   * again. Written after the restore, it hid such a second loss: the jobs restored before it stayed lost
   * (test/chaos/redis-wipe.test.ts, long form).
   */
  async restoring(now: EpochMs): Promise<void> {
    await this.writeMarker(now);
  }

  /** After a full restore: the loss is over (unless the marker vanished meanwhile: the next check sees it). */
  async restored(summary: RestoreSummary): Promise<void> {
    this.lastRestore = summary;
    this.state = 'ok';
    this.lostSince = null;
  }

  private async writeMarker(now: EpochMs): Promise<void> {
    await this.inner.pushMany([markerJob()], now);
    await this.journal.setMeta(MARKER_META, String(now));
  }

  status(pendingJournalWrites: number): JournalStatus {
    return {
      restoreMode: this.mode,
      inner: this.state,
      lastCheckAt: this.lastCheckAt,
      lostSince: this.lostSince,
      lastRestore: this.lastRestore,
      pendingJournalWrites,
    };
  }
}
