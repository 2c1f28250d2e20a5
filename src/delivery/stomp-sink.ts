import type { Client, IFrame } from '@stomp/stompjs';
import { SINK_DEFAULTS } from '../config.js';
import type { Job } from '../core/job.js';
import {
  delivered,
  failed,
  failureFrom,
  jobMetadata,
  raceAbort,
  renderDestination,
  type DeliveryResult,
  type Sink,
} from './sink.js';
import type { StompSinkConfig } from './sink-config.js';

interface Pending {
  resolve(): void;
  reject(err: Error): void;
}

/**
 * STOMP 1.2 over TCP, for ActiveMQ Classic (and Artemis, RabbitMQ's STOMP plug-in). Every SEND asks for
 * a RECEIPT and the job counts as delivered only when it arrives; ActiveMQ sends the receipt after the
 * persistent message is stored. Metadata goes in headers with underscores (`delayq_job_id`), because
 * ActiveMQ turns headers into JMS properties and JMS selectors cannot name a property with a hyphen.
 */
export class StompSink implements Sink {
  readonly type = 'stomp' as const;
  private readonly config: StompSinkConfig;
  private client: Promise<Client> | undefined;
  private readonly pending = new Map<string, Pending>();
  private readonly connectWaiters = new Set<() => void>();
  private seq = 0;
  private closed = false;

  constructor(config: StompSinkConfig) {
    this.config = config;
  }

  async deliver(job: Job, signal: AbortSignal): Promise<DeliveryResult> {
    if (this.closed) return failed('the sink is closed');
    const destination = renderDestination(this.config.destination ?? '/queue/{topic}', job);
    if (/[\r\n\0]/.test(destination)) return failed(`invalid STOMP destination "${destination}"`, false);
    try {
      const client = await raceAbort(this.ensureClient(), signal);
      if (!client.connected) await this.onceConnected(signal);
      const receipt = `${job.id}#${++this.seq}`;
      const confirmed = new Promise<void>((resolve, reject) => this.pending.set(receipt, { resolve, reject }));
      client.watchForReceipt(receipt, () => this.settle(receipt));
      const headers: Record<string, string> = {
        ...this.config.headers,
        ...stompHeaders(job),
        receipt,
        persistent: 'true',
        'content-type': 'application/json',
      };
      client.publish({ destination, body: job.body, headers });
      try {
        await raceAbort(confirmed, signal);
      } finally {
        this.pending.delete(receipt);
      }
      return delivered();
    } catch (err) {
      return failureFrom(err, signal);
    }
  }

  private settle(receipt: string, err?: Error): void {
    const waiter = this.pending.get(receipt);
    if (!waiter) return;
    this.pending.delete(receipt);
    if (err) waiter.reject(err);
    else waiter.resolve();
  }

  /** The connection dropped or the broker sent ERROR: receipts that did not arrive will never arrive. */
  private failAll(err: Error): void {
    for (const receipt of [...this.pending.keys()]) this.settle(receipt, err);
  }

  /** Waits for the (re)connection; an abort removes the waiter so an outage does not pile them up. */
  private onceConnected(signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason ?? new Error('aborted'));
      const onAbort = (): void => {
        this.connectWaiters.delete(waiter);
        reject(signal.reason ?? new Error('aborted'));
      };
      const waiter = (): void => {
        this.connectWaiters.delete(waiter);
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      this.connectWaiters.add(waiter);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private ensureClient(): Promise<Client> {
    this.client ??= this.createClient();
    return this.client;
  }

  private async createClient(): Promise<Client> {
    // The STOMP client is loaded only when a STOMP sink is used.
    const [{ Client }, { TCPWrapper }] = await Promise.all([import('@stomp/stompjs'), import('@stomp/tcp-wrapper')]);
    const { host, port } = this.config;
    const client = new Client({
      webSocketFactory: () => new TCPWrapper(host, port),
      connectHeaders: {
        host: this.config.virtualHost ?? host,
        ...(this.config.login === undefined ? {} : { login: this.config.login }),
        ...(this.config.passcode === undefined ? {} : { passcode: this.config.passcode }),
      },
      connectionTimeout: Math.min(this.config.timeoutMs ?? SINK_DEFAULTS.timeoutMs, 5_000),
      reconnectDelay: 250,
      heartbeatIncoming: 10_000,
      heartbeatOutgoing: 10_000,
      debug: () => undefined,
      onConnect: () => {
        for (const waiter of [...this.connectWaiters]) waiter();
      },
      onStompError: (frame: IFrame) => {
        const err = new Error(`STOMP ERROR: ${frame.headers.message ?? frame.body}`);
        const receipt = frame.headers['receipt-id'];
        if (receipt) this.settle(receipt, err);
        else this.failAll(err);
      },
      onWebSocketClose: () => this.failAll(new Error('the STOMP connection closed before the receipt arrived')),
      onWebSocketError: () => this.failAll(new Error('the STOMP connection failed')),
    });
    if (!this.closed) client.activate();
    return client;
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    this.failAll(new Error('the sink is closed'));
    this.connectWaiters.clear();
    const created = await client?.catch(() => undefined);
    await created?.deactivate().catch(() => undefined);
  }
}

/** `delayq-job-id` → `delayq_job_id`: JMS-selector-friendly names. */
function stompHeaders(job: Job): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(jobMetadata(job))) out[key.replace(/-/g, '_')] = value;
  return out;
}
