import { Redis } from 'ioredis';
import { SINK_DEFAULTS } from '../config.js';
import type { Job } from '../core/job.js';
import {
  delivered,
  failed,
  failureFrom,
  raceAbort,
  renderDestination,
  type DeliveryResult,
  type Sink,
} from './sink.js';
import type { RedisStreamSinkConfig } from './sink-config.js';

/**
 * Redis Streams: one XADD per job; the reply (the entry id) is the confirmation. Fields: `id`, `topic`,
 * `tag`, `bizKey`, `attempt`, `runAt`, `body`. Streams have no de-duplication, so a consumer that must
 * not act twice keys its work on the `id` field. The client fails fast while Redis is down (no offline
 * queue), so an outage turns into retries instead of commands parked in memory.
 */
export class RedisStreamSink implements Sink {
  readonly type = 'redis-stream' as const;
  private readonly config: RedisStreamSinkConfig;
  private redis: Redis | undefined;
  private closed = false;

  constructor(config: RedisStreamSinkConfig) {
    this.config = config;
  }

  async deliver(job: Job, signal: AbortSignal): Promise<DeliveryResult> {
    if (this.closed) return failed('the sink is closed');
    const key = renderDestination(this.config.key ?? '{topic}', job);
    const fields = ['id', job.id, 'topic', job.topic, 'tag', job.tag ?? '', 'bizKey', job.bizKey ?? ''];
    if (job.group !== undefined) fields.push('group', job.group);
    fields.push('attempt', String(job.attempts), 'runAt', String(job.runAt), 'body', job.body);
    const trim = this.config.maxLen === undefined ? [] : ['MAXLEN', '~', String(this.config.maxLen)];
    try {
      const redis = this.client();
      if (redis.status !== 'ready') await waitReady(redis, signal);
      const entry = await raceAbort(redis.call('XADD', key, ...trim, '*', ...fields) as Promise<unknown>, signal);
      return typeof entry === 'string' ? delivered() : failed(`XADD answered ${String(entry)}`);
    } catch (err) {
      return failureFrom(err, signal);
    }
  }

  private client(): Redis {
    if (!this.redis) {
      this.redis = new Redis(this.config.url, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        connectTimeout: Math.min(this.config.timeoutMs ?? SINK_DEFAULTS.timeoutMs, 5_000),
        retryStrategy: (times) => Math.min(50 * times, 1000),
        lazyConnect: false,
      });
      this.redis.on('error', () => undefined); // surfaced per delivery
    }
    return this.redis;
  }

  async close(): Promise<void> {
    this.closed = true;
    const redis = this.redis;
    this.redis = undefined;
    if (redis) redis.disconnect();
  }
}

/** Waits for the connection to be usable; an abort removes the listener so outages do not pile them up. */
function waitReady(redis: Redis, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason ?? new Error('aborted'));
    const onReady = (): void => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    const onAbort = (): void => {
      redis.removeListener('ready', onReady);
      reject(signal.reason ?? new Error('aborted'));
    };
    redis.once('ready', onReady);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
