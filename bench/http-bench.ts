// delayq over HTTP (Redis store): push single and batch with autocannon, and reserve+finish round trips
// with the SDK client. The server runs in a child process (bench/http-server.mjs, the built dist/) on our own Redis.
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { DelayqClient } from '../src/client/client.js';
import { SERVER_SCRIPT } from './build-server.js';
import { summarize } from './lib.js';
import { rotate } from './host-load.js';
import type { RunContext } from './run-context.js';
import { freePort, startProcess, type Server } from './servers.js';
import { bodyFor } from './subject.js';
import { FAR_MS } from './scenarios.js';

export interface HttpResult {
  /** Jobs per second (requests × jobs per request). */
  jobsPerS: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** Requests answered (autocannon's count); undefined where not counted. */
  requests?: number;
}

const TOPIC = 'bench-http';
export const HTTP_CONNECTIONS = 100;
export const HTTP_BATCH = 100;
export const HTTP_BATCH_CONNECTIONS = 10;

/** autocannon POSTing `body` to `url` over `connections` for `durationS`; rates in jobs (requests × jobs per request). */
export async function cannon(
  url: string,
  body: unknown,
  connections: number,
  durationS: number,
  jobsPerRequest = 1,
): Promise<HttpResult> {
  const options = {
    url,
    method: 'POST',
    connections,
    duration: durationS,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  };
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    autocannon(options, (err, r) => (err ? reject(err) : resolve(r)));
  });
  return {
    jobsPerS: result.requests.average * jobsPerRequest,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.non2xx + result.errors,
    requests: result.requests.total,
  };
}

/** The body of a single push the per-request scenarios send: due in FAR_MS, a 100-byte body. */
export const SINGLE_PUSH = { topic: TOPIC, delayMs: FAR_MS, body: bodyFor(0) };

export class HttpBench {
  private server: Server | undefined;
  private readonly redisPort: number;
  private url = '';

  constructor(redisPort: number) {
    this.redisPort = redisPort;
  }

  async open(): Promise<void> {
    const redis = new Redis({ host: '127.0.0.1', port: this.redisPort, lazyConnect: true });
    await redis.connect();
    await redis.flushall(); // our own benchmark Redis
    await redis.quit();
    const port = await freePort();
    this.server = await startProcess(
      'delayq http-server',
      process.execPath,
      [SERVER_SCRIPT, String(port), String(this.redisPort)],
      port,
    );
    this.url = `http://127.0.0.1:${port}`;
  }

  async close(): Promise<void> {
    await this.server?.stop();
    this.server = undefined;
  }

  private cannon(
    path: string,
    body: unknown,
    connections: number,
    durationS: number,
    jobsPerRequest: number,
  ): Promise<HttpResult> {
    return cannon(this.url + path, body, connections, durationS, jobsPerRequest);
  }

  /** POST /v1/jobs, one delayed job per request, 100 connections. */
  pushSingle(durationS: number): Promise<HttpResult> {
    return this.cannon('/v1/jobs', SINGLE_PUSH, HTTP_CONNECTIONS, durationS, 1);
  }

  /** POST /v1/jobs/batch, 100 jobs per request, 10 connections (1000 jobs in flight). */
  pushBatch(durationS: number): Promise<HttpResult> {
    const jobs = Array.from({ length: HTTP_BATCH }, () => ({ topic: TOPIC, delayMs: FAR_MS, body: bodyFor(0) }));
    return this.cannon('/v1/jobs/batch', { jobs }, HTTP_BATCH_CONNECTIONS, durationS, HTTP_BATCH);
  }

  /**
   * `count` ready jobs, then reserve (1 job) + finish through the SDK, `loops` loops at once. The round
   * trip is the time from sending reserve to finish's answer.
   */
  async reserveFinish(count: number, loops: number): Promise<HttpResult> {
    const topic = `${TOPIC}-rf-${loops}`;
    const client = new DelayqClient({ url: this.url });
    for (let i = 0; i < count; i += 1000) {
      await client.pushBatch(Array.from({ length: Math.min(1000, count - i) }, () => ({ topic, body: bodyFor(0) })));
    }
    const roundTrips: number[] = [];
    let left = count;
    let errors = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: loops }, async () => {
        while (left > 0) {
          left--;
          const t0 = performance.now();
          try {
            const [r] = await client.reserve({ topics: [topic], count: 1 });
            if (!r) {
              errors++;
              continue;
            }
            await client.finish(r.job.id, r.token);
            roundTrips.push(performance.now() - t0);
          } catch {
            errors++;
          }
        }
      }),
    );
    const elapsedS = (performance.now() - started) / 1000;
    const s = summarize(roundTrips);
    return { jobsPerS: roundTrips.length / elapsedS, p50Ms: s.p50, p99Ms: s.p99, errors };
  }
}

/** delayq over HTTP per request: push single, push batch, reserve + finish (no peer: a per-request cost). */
export async function httpRounds(ctx: RunContext): Promise<void> {
  const { add, failures, inRound, mode, runs } = ctx;
  const http = new HttpBench(ctx.redisPort);
  try {
    await http.open();
    // Unrecorded warm-up: the server's JIT and autocannon's connections (the first second runs ~3× slower).
    await http.pushSingle(mode['httpWarmupS']!);
    for (let run = 1; run <= runs; run++) {
      await inRound('http', run, `round ${run}/${runs}: HTTP per request`, async (order) => {
        for (const [name, fn] of rotate(
          [
            ['POST /v1/jobs (1 job, 100 connections)', () => http.pushSingle(mode['httpS']!)],
            ['POST /v1/jobs/batch (100 jobs, 10 connections)', () => http.pushBatch(mode['httpS']!)],
            ['reserve + finish, 1 loop (sequential round trips)', () => http.reserveFinish(mode['rf']!, 1)],
            ['reserve + finish, 10 loops at once', () => http.reserveFinish(mode['rf']!, 10)],
          ] as const,
          run,
        )) {
          order.push(name);
          const r = await fn().catch((err: unknown) => {
            failures.push(`http · ${name}: ${(err as Error).message}`);
            return undefined;
          });
          if (!r) continue;
          add('http', name, 'rate', r.jobsPerS);
          add('http', name, 'p50', r.p50Ms);
          add('http', name, 'p99', r.p99Ms);
          add('http', name, 'errors', r.errors);
        }
      });
    }
  } catch (err) {
    failures.push(`http: ${(err as Error).message}`);
  } finally {
    await http.close();
  }
}
