import type { BeanstalkdContext, ConnectionView } from './context.js';

/** A job this connection holds: reserved by it, with the token that proves it. */
export interface Held {
  id: string;
  token: string;
  deadlineAt: number;
}

/** What the commands read and change of a connection (connection.ts). */
export interface ConnectionState extends ConnectionView {
  used: string;
  watched: string[];
  readonly held: Map<number, Held>;
  isWaiting: boolean;
  isProducer: boolean;
  isWorker: boolean;
  readonly ctx: BeanstalkdContext;
  /** Aborted when the client goes away. */
  readonly gone: AbortController;
  readonly isGone: boolean;
}

/**
 * The history reason of the jobs a connection held when it closed (the client went away, or the listener
 * closed): given back, but not a release in stats-job (beanstalkd puts them back without counting one).
 */
export const CLIENT_GONE_REASON = 'beanstalkd connection closed';
