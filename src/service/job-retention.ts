/**
 * Retention of ended jobs on the service (docs/job-api.md): a push may name how long its job is kept once
 * finished or dead, else its topic's configured retention applies (jobs.retentionByTopic). DelayqService
 * owns one (`service.retention`); a push that needs neither goes through the service's own push.
 */
import type { PushInput } from '../core/job-input.js';
import { normalizeRetention, type Retention, type RetentionInput } from '../core/job-outcome.js';
import type { PushResult } from '../store/store.js';
import type { StoreCalls } from './store-calls.js';

/** How a refused push names its field: `jobs[i].field` in a batch request (whatever its size), or the field alone. */
export type PushFieldNames = 'batch' | 'single';

/** What retention needs of DelayqService besides its store calls: the push itself. */
export interface RetentionHost extends StoreCalls {
  pushBatch(inputs: readonly PushInput[], fieldNames: PushFieldNames): Promise<PushResult[]>;
}

export type PushWithRetention = PushInput & { retention?: RetentionInput | undefined };

export class JobRetention {
  private readonly host: RetentionHost;
  private readonly byTopic: ReadonlyMap<string, Retention>;

  constructor(host: RetentionHost, retentionByTopic: Readonly<Record<string, RetentionInput>> = {}) {
    this.host = host;
    this.byTopic = new Map(
      Object.entries(retentionByTopic).flatMap(([topic, input]) => {
        const retention = normalizeRetention(input, `jobs.retentionByTopic.${topic}`);
        return retention ? [[topic, retention] as const] : [];
      }),
    );
  }

  /** Whether a push needs pushBatch here: it names a retention, or its topic has one configured. */
  retains(input: PushWithRetention): boolean {
    return input.retention !== undefined || this.byTopic.has(input.topic);
  }

  /**
   * Pushes jobs, then gives each its retention: its own, else its topic's (jobs.retentionByTopic). A
   * refusal names `jobs[i].field`, or the field alone for `'single'` (DelayqService.pushBatch).
   */
  async pushBatch(inputs: readonly PushWithRetention[], fieldNames: PushFieldNames = 'batch'): Promise<PushResult[]> {
    const own = inputs.map((input, i) =>
      normalizeRetention(input.retention, fieldNames === 'batch' ? `jobs[${i}].retention` : 'retention'),
    );
    const results = await this.host.pushBatch(
      inputs.map(({ retention: _, ...input }) => input),
      fieldNames,
    );
    const groups = new Map<string, { retention: Retention; ids: string[] }>();
    results.forEach((r, i) => {
      const retention = own[i] ?? this.byTopic.get(r.job.topic);
      if (!r.created || !retention) return;
      const key = `${retention.finishedMs},${retention.deadMs}`;
      const group = groups.get(key) ?? { retention, ids: [] };
      group.ids.push(r.job.id);
      groups.set(key, group);
    });
    if (groups.size === 0) return results;
    const now = this.host.now();
    await this.host.run(() =>
      Promise.all([...groups.values()].map((g) => this.host.store.setRetentionMany(g.ids, g.retention, now))),
    );
    return results;
  }
}
