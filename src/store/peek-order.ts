import type { Job } from '../core/job.js';
import { compareReadyOrder } from './ready-order.js';

/** The states a peek reads (the beanstalkd protocol's peek-ready, peek-delayed and peek-buried). */
export type PeekState = 'ready' | 'delayed' | 'dead';

const byId = (a: Job, b: Job): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The order Store.peekNext answers the first of, in every store: ready jobs in the ready order (the one
 * reserve takes next), delayed jobs due first, dead jobs buried first (what redrive by topic takes first);
 * ties by id.
 */
export const PEEK_ORDER: Record<PeekState, (a: Job, b: Job) => number> = {
  ready: compareReadyOrder,
  delayed: (a, b) => a.runAt - b.runAt || byId(a, b),
  dead: (a, b) => (a.finishedAt ?? 0) - (b.finishedAt ?? 0) || byId(a, b),
};
