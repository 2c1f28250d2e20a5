// Where the lateness of 1k due/s over HTTP comes from: the built server on a Redis of its own, a producer
// pushing through the SDK at RATE/s (each job due LEAD ms after), and a consumer that is either the SDK
// Worker or a plain reserve loop (count 100, carrying the previous batch's finishes). Each delivery splits
// into due → reserved (the server: scheduler wake-up, promotion, the waiting reserve) and reserved →
// received (the answer's trip: serialization, HTTP, the client's event loop), read from the job's
// `reservedAt`. Consumers alternate in rounds, so a drifting host hits both alike.
// Also per delivered job: reserve requests, Redis script calls and the server process's CPU.
// Usage: npx tsx bench/probes/api-lateness.ts [SECONDS=5] [ROUNDS=2] [RATE=1000] [LANES=2]
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { DelayqClient } from '../../src/client/client.js';
import { Worker } from '../../src/client/worker.js';
import type { WireJob } from '../../src/protocol/schemas.js';
import type { Ack } from '../../src/protocol/ack-schemas.js';
import { ensureServerBuilt, SERVER_SCRIPT } from '../build-server.js';
import { sleep } from '../lib.js';
import { cleanup, cpuMsOf, freePort, startProcess, startRedis } from '../servers.js';
import { Redis } from 'ioredis';
import { redisCommandCalls } from '../subjects/delayq-subject.js';

const seconds = Number(process.argv[2] ?? 5);
const rounds = Number(process.argv[3] ?? 2);
const rate = Number(process.argv[4] ?? 1000);
/** The SDK Worker's reserve lanes. */
const lanes = Number(process.argv[5] ?? 2);
const LEAD_MS = 500;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
const show = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  return `p50 ${pct(s, 0.5)} p90 ${pct(s, 0.9)} p99 ${pct(s, 0.99)} max ${s[s.length - 1]}`;
};

ensureServerBuilt((line) => console.error(line));
const redis = await startRedis();
const port = await freePort();
const server = await startProcess(
  'delayq server',
  process.execPath,
  [
    SERVER_SCRIPT,
    String(port),
    JSON.stringify({ store: { kind: 'redis' }, redis: { url: `redis://127.0.0.1:${redis.port}` } }),
  ],
  port,
  60_000,
);
const url = `http://127.0.0.1:${port}`;
const producer = new DelayqClient({ url });
const consumerClient = new DelayqClient({ url });
const admin = new Redis({ host: '127.0.0.1', port: redis.port });
/** Reserve requests the consumer sent (the SDK Worker's lanes and the plain loop both go through this). */
let reserveRequests = 0;
const reserveAndAck = consumerClient.reserveAndAck.bind(consumerClient);
consumerClient.reserveAndAck = (...a) => (reserveRequests++, reserveAndAck(...a));
const scriptCalls = async () => {
  let calls = 0;
  for (const [name, c] of await redisCommandCalls(admin)) if (name.startsWith('eval')) calls += c.calls;
  return calls;
};

type Sample = { server: number; trip: number; total: number };

/** Runs one consumer while the producer pushes RATE/s for SECONDS; the samples of every delivery. */
async function round(
  kind: 'sdk' | 'plain',
  topic: string,
): Promise<{ samples: Sample[]; loopP99: number; lag: number; perJob: string }> {
  const samples: Sample[] = [];
  const [requests0, scripts0, cpu0] = [reserveRequests, await scriptCalls(), await cpuMsOf(server.pid)];
  const onJob = (job: WireJob) => {
    const now = Date.now();
    const due = (job.body as { d: number }).d;
    samples.push({ server: job.reservedAt! - due, trip: now - job.reservedAt!, total: now - due });
  };
  let stop: () => Promise<void>;
  if (kind === 'sdk') {
    const worker = new Worker(consumerClient, {
      handlers: { [topic]: onJob },
      concurrency: 100,
      waitMs: 1000,
      lanes,
    }).start();
    stop = () => worker.close();
  } else {
    let stopped = false;
    let acks: Ack[] = [];
    const loop = (async () => {
      while (!stopped) {
        const answer = await consumerClient.reserveAndAck({
          topics: [topic],
          count: 100,
          waitMs: 1000,
          ...(acks.length ? { acks } : {}),
        });
        acks = answer.reservations.map((r) => ({ id: r.job.id, token: r.token, op: 'finish' as const }));
        for (const r of answer.reservations) onJob(r.job);
      }
      if (acks.length) await consumerClient.ack(acks);
    })();
    stop = async () => {
      stopped = true;
      await loop;
    };
  }
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  await sleep(100);
  const total = Math.round(rate * seconds);
  const startedAt = Date.now();
  let produced = 0;
  let lag = 0;
  while (produced < total) {
    lag = Math.max(lag, Date.now() - (startedAt + (produced * 1000) / rate));
    const shouldHave = Math.min(total, Math.floor(((Date.now() - startedAt) * rate) / 1000) + 1);
    const batch: Promise<unknown>[] = [];
    for (; produced < shouldHave; produced++) {
      const d = Math.round(startedAt + (produced * 1000) / rate + LEAD_MS);
      batch.push(producer.push({ topic, runAt: d, body: { d } }));
    }
    await Promise.all(batch);
    await sleep(5);
  }
  const deadline = Date.now() + LEAD_MS + 20_000;
  while (samples.length < total && Date.now() < deadline) await sleep(20);
  loopDelay.disable();
  await stop();
  const n = samples.length;
  const perJob =
    `per job: reserve requests ${((reserveRequests - requests0) / n).toFixed(2)}, ` +
    `Redis script calls ${(((await scriptCalls()) - scripts0) / n).toFixed(2)}, ` +
    `server CPU ${((((await cpuMsOf(server.pid)) - cpu0) * 1000) / n).toFixed(0)} µs`;
  return { samples, loopP99: loopDelay.percentile(99) / 1e6, lag, perJob };
}

try {
  for (let r = 1; r <= rounds; r++) {
    for (const kind of ['plain', 'sdk'] as const) {
      const { samples, loopP99, lag, perJob } = await round(kind, `late-${kind}-${r}`);
      console.log(
        `round ${r} ${kind.padEnd(5)}: n ${samples.length}; total ${show(samples.map((s) => s.total))}; ` +
          `due→reserved ${show(samples.map((s) => s.server))}; reserved→received ${show(samples.map((s) => s.trip))}; ` +
          `client loop delay p99 ${loopP99.toFixed(1)} ms; producer lag ${lag} ms; ${perJob}`,
      );
    }
  }
} finally {
  await producer.close();
  await consumerClient.close();
  admin.disconnect();
  await server.stop();
  await cleanup();
}
