/**
 * The beanstalkd front end: a TCP listener speaking beanstalkd 1.12's protocol over the same DelayqService
 * as the HTTP API (docs/beanstalkd.md). Off unless configured (`beanstalkd.enabled`).
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { pino, type Logger } from 'pino';
import { DelayqError } from '../core/errors.js';
import type { DelayqService } from '../service/service.js';
import { Connection } from './connection.js';
import { BeanstalkdContext, type ConnectionView } from './context.js';

export interface BeanstalkdOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** beanstalkd's max-job-size: the job body limit, bytes. */
  maxJobSize: number;
  /** beanstalkd has no authentication: with tokens configured the listener needs this, or a loopback host. */
  authTokensConfigured?: boolean;
  allowUnauthenticated?: boolean;
  logger?: Logger;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** Refuses to serve unauthenticated beanstalkd traffic beside an API that requires tokens, unless told to. */
export function checkBeanstalkdAuth(
  options: Pick<BeanstalkdOptions, 'host' | 'authTokensConfigured' | 'allowUnauthenticated'>,
): void {
  if (options.authTokensConfigured && !options.allowUnauthenticated && !LOOPBACK.has(options.host)) {
    throw new DelayqError(
      'E_CONFIG',
      'beanstalkd.host: the beanstalkd protocol has no authentication, and auth tokens are configured: ' +
        'bind it to loopback, or set beanstalkd.allowUnauthenticated',
      { field: 'beanstalkd.host' },
    );
  }
}

export class BeanstalkdServer {
  readonly context: BeanstalkdContext;
  private readonly server: Server;
  private readonly options: BeanstalkdOptions;
  private readonly logger: Logger;
  private readonly sockets = new Set<Socket>();
  /** Takes this listener's workers off the consumer list. */
  private readonly unlistWorkers: () => void;

  constructor(service: DelayqService, options: BeanstalkdOptions) {
    checkBeanstalkdAuth(options);
    this.options = options;
    this.logger = options.logger ?? pino({ level: 'silent' });
    this.context = new BeanstalkdContext(service, options.maxJobSize);
    this.server = createServer((socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      const connection = new Connection(socket, this.context, this.logger);
      this.context.connections.add(connection);
      this.context.totalConnections++;
    });
    // A connection that reserved (a worker) is a consumer of the tubes it watches, until it closes.
    const numbers = new WeakMap<ConnectionView, number>();
    let next = 0;
    this.unlistWorkers = service.consumers.addSource(() =>
      [...this.context.connections]
        .filter((c) => c.isWorker)
        .map((c) => {
          let n = numbers.get(c);
          if (n === undefined) numbers.set(c, (n = ++next));
          return {
            key: `beanstalkd-${n}`,
            kind: 'beanstalkd' as const,
            topics: c.watched,
            since: c.openedAt,
            remote: c.remote,
            held: c.heldCount,
          };
        }),
    );
  }

  /** Listens; resolves with the port (useful with port 0). */
  listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port, this.options.host, () => {
        this.server.off('error', reject);
        resolve((this.server.address() as AddressInfo).port);
      });
    });
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Stops accepting, closes every connection (their held jobs are released) and waits for the listener to close. */
  async close(): Promise<void> {
    this.unlistWorkers();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await Promise.all([...this.context.connections].map((c) => (c as Connection).closed));
    await closed;
  }
}
