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
