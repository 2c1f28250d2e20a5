// What delayq's HTTP layer (validation, auth, logging, metrics, serialisation) costs per request, against a bare
// Fastify route in the same run ("http-floor"): the same single push (POST /v1/jobs, 100 connections of
// autocannon) sent to bench/probes/fastify-floor.mjs (Fastify, the version delayq uses, answering a prepared
// push answer of the same size, no validation and no store) and to delayq's built server on Redis and on the
// embedded store, each in its own process. Server CPU per request from /proc; on Redis, Redis's CPU apart.
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { SERVER_SCRIPT } from './build-server.js';
import { rotate } from './host-load.js';
import { cannon, HTTP_CONNECTIONS, SINGLE_PUSH } from './http-bench.js';
import type { RunContext } from './run-context.js';
import { cpuMsOf, freePort, startProcess, tempDir, type Server } from './servers.js';
import { redisCpuMs } from './subjects/delayq-subject.js';

export const FASTIFY_FLOOR = 'bare Fastify route (prepared answer)';
const FLOOR_SCRIPT = fileURLToPath(new URL('./probes/fastify-floor.mjs', import.meta.url));

interface Target {
  name: string;
  server: Server;
  /** Redis's CPU so far, ms, for a server on Redis. */
  redisCpu?: () => Promise<number>;
}

async function startTargets(redisPort: number, admin: Redis): Promise<Target[]> {
  const start = async (name: string, script: string, store?: string): Promise<Target> => {
    const port = await freePort();
    const args = [script, String(port), ...(store ? [store] : [])];
    return { name, server: await startProcess(name, process.execPath, args, port, 60_000) };
  };
  const sqlite = JSON.stringify({ store: { kind: 'sqlite' }, sqlite: { path: `${tempDir('floor')}/delayq.db` } });
  await admin.flushall(); // the benchmark's own Redis
  return [
    await start(FASTIFY_FLOOR, FLOOR_SCRIPT),
    {
      ...(await start('delayq · Redis: POST /v1/jobs', SERVER_SCRIPT, String(redisPort))),
      redisCpu: () => redisCpuMs(admin),
    },
    await start('delayq · embedded: POST /v1/jobs', SERVER_SCRIPT, sqlite),
  ];
}

export async function httpFloorRounds(ctx: RunContext): Promise<void> {
  const { mode, runs, add, failures } = ctx;
  const admin = new Redis({ host: '127.0.0.1', port: ctx.redisPort, lazyConnect: true });
  let targets: Target[] = [];
  try {
    await admin.connect();
    targets = await startTargets(ctx.redisPort, admin);
    // Unrecorded warm-up: each server's JIT and autocannon's connections.
    for (const t of targets)
      await cannon(`http://127.0.0.1:${t.server.port}/v1/jobs`, SINGLE_PUSH, HTTP_CONNECTIONS, mode['httpWarmupS']!);
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
    for (const t of targets) await t.server.stop();
    await admin.quit().catch(() => undefined);
  }
}
