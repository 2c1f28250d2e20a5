import type { Job } from '../core/job.js';

/**
 * The order in which reserve hands out ready jobs, in every store: priority first (lower number first),
 * then due time (runAt), then arrival (createdAt), then id. Beanstalkd's and BullMQ's meaning of priority:
 * a backlog is served by priority, whatever the due times.
 */
export type ReadyOrderKey = Pick<Job, 'priority' | 'runAt' | 'createdAt' | 'id'>;

export function compareReadyOrder(a: ReadyOrderKey, b: ReadyOrderKey): number {
  return (
    a.priority - b.priority ||
    a.runAt - b.runAt ||
    a.createdAt - b.createdAt ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}
