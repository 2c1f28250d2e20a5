// delayq OVER THE API: the built server in its own process (bench/http-server.mjs) on the embedded store, on Redis,
// or on Redis + the PostgreSQL journal, driven as its users drive it: one push call per job (100 in flight).
// The SDK sends the calls of one event-loop turn as one batch request and consumes with its Worker
// (src/client/worker.ts); the plain clients (node:http, fetch, Python's http.client: plain-http.ts,
// python-push.ts) send one request per push and consume as a Python or PHP client written from the docs would
// (one kept-alive connection; reserve count=100 carrying the previous batch's finishes as acks: one round
// trip per batch).
import { Redis } from 'ioredis';
import { join } from 'node:path';
import { DelayqClient } from '../../src/client/client.js';
import { Worker } from '../../src/client/worker.js';
import { serverArgs } from '../build-server.js';
import { cpuMsOf, freePort, onCleanup, startProcess, tempDir, type Server } from '../servers.js';
import { sleep } from '../lib.js';
import { BULK_SIZE, CONSUMER_CONCURRENCY, IN_FLIGHT, withInFlight } from '../scenarios.js';
import { bodyFor, type Consumer, type OnJob, type Subject } from '../subject.js';
import { redisCommandCalls, redisCpuMs, usedMemory } from './delayq-subject.js';
import { FetchClient, NodeHttpClient, type PlainHttp } from './plain-http.js';
import { PYTHON, pythonPush } from './python-push.js';
import { dropSqlDatabase, newSqlDatabase, type SqlTarget } from './sql-databases.js';

const TOPIC = 'bench';
const RESERVE_WAIT_MS = 1000;
/**
 * Jobs pushed and drained on a topic of their own before measuring: a long-running server is warm (JIT, its
 * heap grown). It takes requests, not jobs: a fresh server's SDK pushes (batches of 50–100 jobs a request) kept
 * speeding up for their first 60,000–100,000 jobs, single pushes for far fewer (docs/performance.md, "Push over
 * HTTP"). So the SDK's warm-up is 100,000 jobs, a plain client's 20,000 requests.
 */
const WARM_UP_JOBS: Record<HttpClientKind, number> = { sdk: 100_000, plain: 20_000, fetch: 20_000, python: 20_000 };
const WARM_UP_TOPIC = 'bench-warm-up';

export type HttpBackend =
  { kind: 'sqlite' } | { kind: 'redis'; port: number } | { kind: 'journal'; port: number; sql: SqlTarget };
/** Who pushes: the SDK, or a plain client (node:http, fetch, Python's http.client) with one request per job. */
export type HttpClientKind = 'sdk' | 'plain' | 'fetch' | 'python';

const CLIENT_LABEL: Record<HttpClientKind, string> = {
  sdk: 'SDK',
  plain: 'plain HTTP',
  fetch: 'plain fetch',
  python: 'Python http.client',
};
const PLAIN_CONSUMER = 'reserve count=100 carrying the previous batch as acks (node:http, one kept-alive connection)';
const CLIENT_NOTE: Record<HttpClientKind, string> = {
  sdk: 'SDK client.push per job (the pushes of a turn coalesced into one batch request), SDK Worker (2 lanes, acks carried on the next reserve)',
  plain: `plain JSON over one kept-alive node:http agent, one POST /v1/jobs per push; ${PLAIN_CONSUMER}`,
  fetch: `plain JSON through the global fetch (undici's default keep-alive pool), one POST /v1/jobs per push; ${PLAIN_CONSUMER}`,
  python: `${PYTHON} (stdlib only): one thread per push in flight, each with one kept-alive http.client connection, one POST /v1/jobs per push; ${PLAIN_CONSUMER}`,
};

export class DelayqHttpSubject implements Subject {
  readonly family = 'delayq' as const;
  readonly resolutionMs = 1;
  readonly name: string;
  readonly memoryKind: string;
  readonly note: string;
  private readonly backend: HttpBackend;
  private readonly kind: HttpClientKind;
  private server: Server | undefined;
  private client: DelayqClient | undefined;
  /** The plain client of this subject's pushes (node:http for the SDK's and Python's single pushes outside pushMany). */
  private pusher: PlainHttp | undefined;
  /** The plain consumer's connection. */
  private plain: NodeHttpClient | undefined;
  private admin: Redis | undefined;
  private sqlName: string | undefined;
  private readonly dir = tempDir('http');
  private reserves = 0;
  private pythonCpuMs = 0;

  constructor(backend: HttpBackend, kind: HttpClientKind) {
    this.backend = backend;
    this.kind = kind;
    const store = backend.kind === 'sqlite' ? 'embedded' : backend.kind === 'redis' ? 'Redis' : 'Redis + PostgreSQL';
    this.name = `delayq · ${store} · ${CLIENT_LABEL[kind]}`;
    this.memoryKind = backend.kind === 'sqlite' ? 'not measured over HTTP' : 'Redis used_memory';
    this.note = `over the API: server in its own process (${store}); ${CLIENT_NOTE[kind]}`;
  }

  /** The server's port, once open. */
  get port(): number {
    if (!this.server) throw new Error(`${this.name}: not open`);
    return this.server.port;
  }

  async open(): Promise<void> {
    let overrides: Record<string, unknown>;
    if (this.backend.kind === 'sqlite') {
      overrides = { store: { kind: 'sqlite' }, sqlite: { path: join(this.dir, `bench-${Date.now()}.db`) } };
    } else {
      this.admin = new Redis({ host: '127.0.0.1', port: this.backend.port, lazyConnect: true });
      await this.admin.connect();
      await this.admin.flushall(); // our own benchmark Redis, never the shared 6379
      overrides = { store: { kind: 'redis' }, redis: { url: `redis://127.0.0.1:${this.backend.port}` } };
      if (this.backend.kind === 'journal') {
        const sql = this.backend.sql;
        const name = await newSqlDatabase(sql);
        this.sqlName = name;
        onCleanup(() => dropSqlDatabase(sql, name));
        overrides['journal'] = { kind: 'postgres', url: sql.url, schema: name };
      }
    }
    const port = await freePort();
    this.server = await startProcess(
      `delayq server (${this.name})`,
      process.execPath,
      serverArgs(String(port), JSON.stringify(overrides)),
      port,
      60_000,
    );
    const url = `http://127.0.0.1:${port}`;
    this.client = new DelayqClient({ url });
    // Reserve requests counted where the Worker sends them (the plain consumer counts its own).
    const reserveAndAck = this.client.reserveAndAck.bind(this.client);
    this.client.reserveAndAck = (...args) => (this.reserves++, reserveAndAck(...args));
    this.plain = new NodeHttpClient(port);
    this.pusher = this.kind === 'fetch' ? new FetchClient(port) : this.plain;
    await this.warmUp();
  }

  /**
   * A server that users reach has been running: its JIT has compiled the request path. A fresh process
   * runs its first few thousand requests several times slower, which a short measurement would count
   * against it (the in-process subjects share a warmed-up process). Pushes, one by one and in a batch,
   * due at once, drained by this subject's own consumer, on a topic the scenarios never read.
   */
  private async warmUp(): Promise<void> {
    const now = Date.now();
    const jobs = WARM_UP_JOBS[this.kind];
    await withInFlight(jobs, IN_FLIGHT, (i) => this.pushTo(WARM_UP_TOPIC, now - i));
    await this.client!.pushBatch(
      Array.from({ length: BULK_SIZE }, () => ({ topic: WARM_UP_TOPIC, runAt: now, body: bodyFor(now) })),
    );
    let drained = 0;
    const consumer = await this.consumeTopic(WARM_UP_TOPIC, CONSUMER_CONCURRENCY, () => void drained++);
    try {
      const deadline = Date.now() + 120_000;
      while (drained < jobs + BULK_SIZE && Date.now() < deadline) await sleep(20);
    } finally {
      await consumer.stop();
    }
    if (drained < jobs + BULK_SIZE) throw new Error(`warm-up: ${drained} of ${jobs + BULK_SIZE} jobs came back`);
  }

  async close(): Promise<void> {
    await this.client?.close();
    this.pusher?.close();
    this.plain?.close();
    await this.server?.stop();
    this.server = undefined;
    if (this.backend.kind === 'journal' && this.sqlName)
      await dropSqlDatabase(this.backend.sql, this.sqlName).catch(() => undefined);
    this.sqlName = undefined;
    await this.admin?.quit();
    this.admin = undefined;
  }

  push(dueAt: number): Promise<void> {
    return this.pushTo(TOPIC, dueAt);
  }

  private async pushTo(topic: string, dueAt: number): Promise<void> {
    if (this.kind === 'sdk') await this.client!.push({ topic, runAt: dueAt, body: bodyFor(dueAt) });
    else await this.pusher!.post('/v1/jobs', { topic, runAt: dueAt, body: bodyFor(dueAt) });
  }

  /** Python's pushes come from its own process; the other clients push from this one (withInFlight). */
  get pushMany(): Subject['pushMany'] {
    if (this.kind !== 'python') return undefined;
    return async (count, inFlight, dueAt) => {
      const job = { topic: TOPIC, runAt: dueAt, body: bodyFor(dueAt) };
      const r = await pythonPush(this.port, count, inFlight, job);
      this.pythonCpuMs += r.cpuMs;
      return r.seconds;
    };
  }

  clientCpuMs(): number {
    return this.pythonCpuMs;
  }

  reserveRequests(): number {
    return this.reserves;
  }

  async redisCpuMs(): Promise<number | undefined> {
    return this.admin ? redisCpuMs(this.admin) : undefined;
  }

  /** The server's Prometheus text (GET /metrics): its store calls by operation, for the lateness breakdown. */
  async metricsText(): Promise<string> {
    const res = await fetch(`http://127.0.0.1:${this.port}/metrics`);
    if (!res.ok) throw new Error(`GET /metrics: HTTP ${res.status}`);
    return res.text();
  }

  async pushBulk(dueAts: readonly number[]): Promise<void> {
    await this.client!.pushBatch(dueAts.map((dueAt) => ({ topic: TOPIC, runAt: dueAt, body: bodyFor(dueAt) })));
  }

  async memoryBytes(): Promise<number | undefined> {
    return this.admin ? usedMemory(this.admin) : undefined;
  }

  /** The delayq server process's CPU (not Redis's): the per-request cost over the API. */
  async serverCpuMs(): Promise<number | undefined> {
    return this.server ? cpuMsOf(this.server.pid) : undefined;
  }

  commandCalls(): Promise<Map<string, { calls: number; usec: number }>> {
    return this.admin ? redisCommandCalls(this.admin) : Promise.resolve(new Map());
  }

  consume(concurrency: number, onJob: OnJob): Promise<Consumer> {
    return this.consumeTopic(TOPIC, concurrency, onJob);
  }

  private async consumeTopic(topic: string, concurrency: number, onJob: OnJob): Promise<Consumer> {
    if (this.kind === 'sdk') {
      const worker = new Worker(this.client!, {
        handlers: { [topic]: (job) => onJob((job.body as { d: number }).d, job) },
        concurrency,
        waitMs: RESERVE_WAIT_MS,
      }).start();
      return { stop: () => worker.close() };
    }
    return this.plainConsumer(topic, Math.min(concurrency, 100), onJob);
  }

  /** reserve → handle each job → the next reserve carries their finishes; the last ones go by POST /v1/ack. */
  private plainConsumer(topic: string, count: number, onJob: OnJob): Consumer {
    const plain = this.plain!;
    let stopped = false;
    let acks: { id: string; token: string; op: 'finish' }[] = [];
    const loop = (async () => {
      while (!stopped) {
        this.reserves++;
        const answer = (await plain.post('/v1/reserve', {
          topics: [topic],
          count,
          waitMs: RESERVE_WAIT_MS,
          ...(acks.length ? { acks } : {}),
        })) as {
          reservations: {
            job: { id: string; body: { d: number }; readyAt: number | null; reservedAt: number | null };
            token: string;
          }[];
        };
        acks = [];
        for (const r of answer.reservations) {
          onJob(r.job.body.d, r.job);
          acks.push({ id: r.job.id, token: r.token, op: 'finish' });
        }
      }
      if (acks.length) await plain.post('/v1/ack', { acks });
    })();
    return {
      stop: async () => {
        stopped = true;
        await loop; // at most one long-poll (RESERVE_WAIT_MS) away
      },
    };
  }
}
