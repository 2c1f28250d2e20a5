// What delayq's HTTP layer (validation, auth, logging, metrics, serialisation) costs per request, against a bare
// Fastify route in the same run ("http-floor"): the same single push (POST /v1/jobs, 100 connections of
// autocannon) sent to bench/probes/fastify-floor.mjs (Fastify, the version delayq uses, answering a prepared
// push answer of the same size, no validation and no store) and to delayq's built server on Redis and on the
// embedded store, each in its own process. Server CPU per request from /proc; on Redis, Redis's CPU apart.
// In the same rounds ("push-floor"), the push scenario's client against the same servers: single pushes over one
// kept-alive node:http agent, 100 in flight, and the SDK's client.push (a turn's pushes as one batch request) to
// delayq on Redis: so a single push's server CPU is set beside the SDK's and beside Fastify's own per request.
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { DelayqClient } from '../src/client/client.js';
import { SERVER_SCRIPT } from './build-server.js';
import { rotate } from './host-load.js';
import { cannon, HTTP_CONNECTIONS, SINGLE_PUSH } from './http-bench.js';
import type { RunContext } from './run-context.js';
import { FAR_MS, IN_FLIGHT, withInFlight } from './scenarios.js';
import { cpuMsOf, freePort, startProcess, tempDir, type Server } from './servers.js';
import { bodyFor } from './subject.js';
import { redisCpuMs } from './subjects/delayq-subject.js';
import { NodeHttpClient } from './subjects/plain-http.js';

export const FASTIFY_FLOOR = 'bare Fastify route (prepared answer)';
/** The push-floor rows: who pushes to which server. */
export const SINGLE_PUSHES = 'node:http, one request per push';
export const FLOOR_SINGLE = `${FASTIFY_FLOOR} · ${SINGLE_PUSHES}`;
export const SDK_PUSHES = 'delayq · Redis · SDK client.push (a turn’s pushes in one batch request)';
const FLOOR_SCRIPT = fileURLToPath(new URL('./probes/fastify-floor.mjs', import.meta.url));

interface Target {
  name: string;
  /** Its row in push-floor. */
  pushName: string;
  server: Server;
  /** Redis's CPU so far, ms, for a server on Redis. */
  redisCpu?: () => Promise<number>;
}

async function startTargets(redisPort: number, admin: Redis): Promise<Target[]> {
  const start = async (name: string, pushName: string, script: string, store?: string): Promise<Target> => {
    const port = await freePort();
    const args = [script, String(port), ...(store ? [store] : [])];
    return { name, pushName, server: await startProcess(name, process.execPath, args, port, 60_000) };
  };
  const sqlite = JSON.stringify({ store: { kind: 'sqlite' }, sqlite: { path: `${tempDir('floor')}/delayq.db` } });
  await admin.flushall(); // the benchmark's own Redis
  return [
    await start(FASTIFY_FLOOR, FLOOR_SINGLE, FLOOR_SCRIPT),
    {
      ...(await start(
        'delayq · Redis: POST /v1/jobs',
        `delayq · Redis · ${SINGLE_PUSHES}`,
        SERVER_SCRIPT,
        String(redisPort),
      )),
      redisCpu: () => redisCpuMs(admin),
    },
    await start('delayq · embedded: POST /v1/jobs', `delayq · embedded · ${SINGLE_PUSHES}`, SERVER_SCRIPT, sqlite),
  ];
}

/** `count` pushes, `IN_FLIGHT` outstanding, through `push`: jobs/s and the server's (and Redis's) CPU µs a push. */
async function pushCost(
  target: Target,
  count: number,
  push: () => Promise<unknown>,
): Promise<{ rate: number; serverUs: number; redisUs: number | undefined }> {
  const [cpu0, redis0] = [cpuMsOf(target.server.pid), await target.redisCpu?.()];
  const started = performance.now();
  await withInFlight(count, IN_FLIGHT, async () => void (await push()));
  const seconds = (performance.now() - started) / 1000;
  const serverUs = ((cpuMsOf(target.server.pid) - cpu0) * 1000) / count;
  const redisUs = redis0 === undefined ? undefined : (((await target.redisCpu!()) - redis0) * 1000) / count;
  return { rate: count / seconds, serverUs, redisUs };
}

/** The push scenario's job: due in FAR_MS, a 100-byte body. */
const pushedJob = () => {
  const runAt = Date.now() + FAR_MS;
  return { topic: 'bench', runAt, body: bodyFor(runAt) };
};

export async function httpFloorRounds(ctx: RunContext): Promise<void> {
  const { mode, runs, add, failures } = ctx;
  const admin = new Redis({ host: '127.0.0.1', port: ctx.redisPort, lazyConnect: true });
  let targets: Target[] = [];
  const plains = new Map<Target, NodeHttpClient>();
  let sdk: DelayqClient | undefined;
  const pushes = mode['enqueue']!;
  try {
    await admin.connect();
    targets = await startTargets(ctx.redisPort, admin);
    for (const t of targets) plains.set(t, new NodeHttpClient(t.server.port));
    const redisTarget = targets.find((t) => t.redisCpu)!;
    sdk = new DelayqClient({ url: `http://127.0.0.1:${redisTarget.server.port}` });
    // Unrecorded warm-up: each server's JIT, autocannon's connections, the single and the batched push path.
    for (const t of targets) {
      await cannon(`http://127.0.0.1:${t.server.port}/v1/jobs`, SINGLE_PUSH, HTTP_CONNECTIONS, mode['httpWarmupS']!);
      await pushCost(t, Math.min(pushes, 5000), () => plains.get(t)!.post('/v1/jobs', pushedJob()));
    }
    await pushCost(redisTarget, Math.min(pushes, 5000), () => sdk!.push(pushedJob()));
    for (let run = 1; run <= runs; run++) {
      await ctx.inRound(
        'http-floor',
        run,
        `round ${run}/${runs}: HTTP per request against a bare Fastify route`,
        async (order) => {
          const serverUs = new Map<string, number>();
          for (const t of rotate(targets, run)) {
            order.push(t.name);
            try {
              const [cpu0, redis0] = [cpuMsOf(t.server.pid), await t.redisCpu?.()];
              const r = await cannon(
                `http://127.0.0.1:${t.server.port}/v1/jobs`,
                SINGLE_PUSH,
                HTTP_CONNECTIONS,
                mode['httpS']!,
              );
              const requests = r.requests ?? r.jobsPerS * mode['httpS']!;
              const us = ((cpuMsOf(t.server.pid) - cpu0) * 1000) / requests;
              serverUs.set(t.name, us);
              add('http-floor', t.name, 'rate', r.jobsPerS);
              add('http-floor', t.name, 'serverUs', us);
              if (redis0 !== undefined)
                add('http-floor', t.name, 'redisUs', (((await t.redisCpu!()) - redis0) * 1000) / requests);
              add('http-floor', t.name, 'p99', r.p99Ms);
              add('http-floor', t.name, 'errors', r.errors);
              if (r.errors > 0) failures.push(`http-floor · ${t.name}: ${r.errors} error answer(s)`);
            } catch (err) {
              failures.push(`http-floor · ${t.name}: ${(err as Error).message}`);
            }
            const clients: [string, () => Promise<unknown>][] = [
              [t.pushName, () => plains.get(t)!.post('/v1/jobs', pushedJob())],
            ];
            if (t === redisTarget) clients.push([SDK_PUSHES, () => sdk!.push(pushedJob())]);
            for (const [row, push] of run % 2 ? clients : [...clients].reverse()) {
              try {
                const c = await pushCost(t, pushes, push);
                add('push-floor', row, 'rate', c.rate);
                add('push-floor', row, 'serverUs', c.serverUs);
                if (c.redisUs !== undefined) add('push-floor', row, 'redisUs', c.redisUs);
              } catch (err) {
                failures.push(`push-floor · ${row}: ${(err as Error).message}`);
              }
            }
          }
          const floor = serverUs.get(FASTIFY_FLOOR);
          if (floor !== undefined)
            for (const [name, us] of serverUs)
              if (name !== FASTIFY_FLOOR) add('http-floor', name, 'aboveFloorUs', us - floor);
        },
      );
    }
  } catch (err) {
    failures.push(`http-floor: ${(err as Error).message}`);
  } finally {
    await sdk?.close();
    for (const plain of plains.values()) plain.close();
    for (const t of targets) await t.server.stop();
    await admin.quit().catch(() => undefined);
  }
}
