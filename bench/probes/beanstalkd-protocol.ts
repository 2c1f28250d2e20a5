// The beanstalkd protocol, side by side: beanstalkd itself and delayq's listener (the built dist/, Redis store,
// its own process as `delayq serve` runs it), driven by the same jackd clients as the bench's burst and enqueue
// (10 producer connections with 100 puts in flight; 100 consumer connections, reserve-with-timeout then delete).
// Prints per system and phase: jobs/s, and CPU per job of the server process (user, system), of this (client)
// process and of Redis, with Redis commands per job. Systems run in the order given, ROUNDS times over
// (alternating, so a loaded host disturbs each alike): `beanstalkd`, `beanstalkd-binlog` (durable: `-b DIR`), `delayq` (this tree's dist/),
// `delayq:PATH` (the server script of another build, e.g. a copy of an older dist/ beside its bench/http-server.mjs),
// `floor` (beanstalkd-floor.mjs: a Node server answering from memory, no store: Node's own share), or
// `redis-floor` (beanstalkd-redis-floor.mjs: the same keeping each job in Redis with the least durable work).
// Redis's CPU is also shown as the part spent inside scripts (commandstats' evalsha µs, wall time in Redis).
// `prof` writes CPU profiles of the delayq servers to .tmp/ (node --cpu-prof); `drain` fills delayq over HTTP
// and measures the drain alone; `delay=S` puts jobs due S s later (the drain then times the burst, waits included);
// `consumers=N` drains over N connections instead of 100.
// Usage: BENCH_PORT_MIN=… BENCH_PORT_MAX=… npx tsx bench/probes/beanstalkd-protocol.ts [JOBS=20000] [ROUNDS=1]
//        [SYSTEM…] [prof] [drain] [delay=S] [consumers=N]
import type { JackdClient } from 'jackd';
import JackdModule from 'jackd';
import { Redis } from 'ioredis';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { ensureServerBuilt, SERVER_SCRIPT } from '../build-server.js';
import { DelayqClient } from '../../src/client/client.js';
import { cleanup, cpuMsOf, freePort, startBeanstalkd, startProcess, startRedis, type Server } from '../servers.js';
import { bodyFor } from '../subject.js';
import { redisCommandCalls, redisCpuMs } from '../subjects/delayq-subject.js';

const args = process.argv.slice(2);
const jobs = Number(args[0] ?? 20_000);
const rounds = Number(args[1] ?? 1);
const systems = args.filter(
  (a) => a.startsWith('beanstalkd') || a === 'floor' || a === 'redis-floor' || a.startsWith('delayq'),
);
const profile = args.includes('prof');
/** `drain`: fill delayq over HTTP (one batch call per 1000) and measure the drain alone. */
const drainOnly = args.includes('drain');
/** `consumers=N`: consumer connections (100); 1 shows each command's fixed cost, nothing shared by a turn. */
const consumerCount = Number(args.find((a) => a.startsWith('consumers='))?.slice(10) ?? 100);
/** `delay=S`: puts due S seconds later (a burst: consumers wait, then every job comes due at once). */
const delayS = Number(args.find((a) => a.startsWith('delay='))?.slice(6) ?? 0);
const Jackd = JackdModule as unknown as new () => JackdClient;
const TUBE = 'probe';
/** A Node server answering from memory (no store): the floor of Node's own socket work per job. */
const FLOOR_SCRIPT = new URL('./beanstalkd-floor.mjs', import.meta.url).pathname;
/** The same on Redis, with the least work that keeps a job durable: the floor of any Redis store's drain. */
const REDIS_FLOOR_SCRIPT = new URL('./beanstalkd-redis-floor.mjs', import.meta.url).pathname;

async function connect(port: number): Promise<JackdClient> {
  const client = new Jackd();
  await client.connect({ host: '127.0.0.1', port });
  return client;
}

/** `count` puts over 10 connections, 100 in flight. */
async function enqueue(port: number, count: number): Promise<void> {
  const producers = await Promise.all(
    Array.from({ length: 10 }, async () => {
      const c = await connect(port);
      await c.use(TUBE);
      return c;
    }),
  );
  let next = 0;
  const body = JSON.stringify(bodyFor(0));
  await Promise.all(
    Array.from({ length: 100 }, async (_, slot) => {
      while (next++ < count) await producers[slot % 10]!.put(body, { ttr: 30, delay: delayS });
    }),
  );
  await Promise.allSettled(producers.map((c) => c.quit()));
}

/** 100 connections each reserve-with-timeout then delete until `count` are gone. */
async function drain(port: number, count: number): Promise<void> {
  const consumers = await Promise.all(
    Array.from({ length: consumerCount }, async () => {
      const c = await connect(port);
      await c.watch(TUBE);
      await c.ignore('default');
      return c;
    }),
  );
  let done = 0;
  await Promise.all(
    consumers.map(async (c) => {
      while (done < count) {
        try {
          const job = await c.reserveWithTimeout(1);
          await c.delete(job.id);
          done++;
        } catch (err) {
          if (!/TIMED_OUT|DEADLINE_SOON/.test(String(err))) throw err;
        }
      }
    }),
  );
  await Promise.allSettled(consumers.map((c) => c.quit()));
}

/** User and system CPU of a process so far, ms (Linux /proc; clock ticks are 1/100 s here). */
function userSysMs(pid: number): [number, number] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [Number(fields[11]) * 10, Number(fields[12]) * 10];
}

async function measure(
  name: string,
  server: Server,
  admin: Redis | undefined,
  fill?: () => Promise<void>,
): Promise<void> {
  for (const [phase, run] of [
    ['enqueue', () => (fill ? fill() : enqueue(server.port, jobs))],
    ['drain', () => drain(server.port, jobs)],
  ] as const) {
    if (fill && phase === 'enqueue') {
      await run();
      continue;
    }
    const [user0, sys0] = userSysMs(server.pid);
    const calls0 = admin ? await redisCommandCalls(admin) : undefined;
    const redis0 = admin ? await redisCpuMs(admin) : 0;
    const [server0, self0] = [cpuMsOf(server.pid), process.cpuUsage()];
    const started = performance.now();
    await run();
    const seconds = (performance.now() - started) / 1000;
    const serverUs = ((cpuMsOf(server.pid) - server0) * 1000) / jobs;
    const [user1, sys1] = userSysMs(server.pid);
    const split = `(user ${(((user1 - user0) * 1000) / jobs).toFixed(1)}, sys ${(((sys1 - sys0) * 1000) / jobs).toFixed(1)})`;
    const self = process.cpuUsage(self0);
    const clientUs = (self.user + self.system) / jobs;
    let redisPart = '';
    if (admin && calls0) {
      const redisUs = (((await redisCpuMs(admin)) - redis0) * 1000) / jobs;
      let calls = 0;
      const byName: string[] = [];
      let inScripts = 0;
      for (const [cmd, c] of await redisCommandCalls(admin)) {
        const n = c.calls - (calls0.get(cmd)?.calls ?? 0);
        if (cmd === 'info') continue;
        calls += n;
        if (n >= jobs / 100) byName.push(`${cmd} ${(n / jobs).toFixed(3)}`);
        if (cmd === 'evalsha') inScripts = c.usec - (calls0.get(cmd)?.usec ?? 0);
      }
      redisPart = `, Redis ${redisUs.toFixed(1)} µs (${(inScripts / jobs).toFixed(1)} in scripts); Redis commands/job ${(calls / jobs).toFixed(3)} (${byName.join(', ')})`;
    }
    console.log(
      `${name} ${phase}: ${Math.round(jobs / seconds)} jobs/s; CPU/job server ${serverUs.toFixed(1)} µs ${split}, ` +
        `client ${clientUs.toFixed(1)} µs${redisPart}`,
    );
  }
}

/** A delayq server from the script given, on its own HTTP and beanstalkd ports. */
async function startDelayq(script: string, redisPort: number): Promise<{ server: Server; httpPort: number }> {
  const [httpPort, bsPort] = [await freePort(), await freePort()];
  const nodeArgs = profile ? ['--cpu-prof', '--cpu-prof-dir=.tmp'] : [];
  const server = await startProcess(
    'delayq',
    process.execPath,
    [...nodeArgs, script, String(httpPort), String(redisPort), '', String(bsPort)],
    bsPort,
    60_000,
  );
  return { server, httpPort };
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');
try {
  console.log(`load average ${load()}; ${jobs} jobs`);
  ensureServerBuilt((line) => console.error(line));
  const redis = await startRedis();
  const admin = new Redis({ host: '127.0.0.1', port: redis.port });
  for (let round = 1; round <= rounds; round++) {
    for (const system of systems.length ? systems : ['beanstalkd', 'delayq']) {
      if (system === 'floor') {
        if (drainOnly) continue;
        const port = await freePort();
        const floor = await startProcess('floor', process.execPath, [FLOOR_SCRIPT, String(port)], port);
        await measure('floor', floor, undefined);
        await floor.stop();
        continue;
      }
      if (system === 'redis-floor') {
        if (drainOnly) continue;
        await admin.flushall(); // our own Redis
        const port = await freePort();
        const args = [REDIS_FLOOR_SCRIPT, String(port), String(redis.port)];
        const floor = await startProcess('redis-floor', process.execPath, args, port);
        await measure('redis-floor', floor, admin);
        await floor.stop();
        continue;
      }
      if (system === 'beanstalkd' || system === 'beanstalkd-binlog') {
        if (drainOnly) continue;
        const beanstalkd = await startBeanstalkd({ binlog: system === 'beanstalkd-binlog' });
        await measure(system, beanstalkd, undefined);
        await beanstalkd.stop();
        continue;
      }
      await admin.flushall(); // our own Redis
      const script = system === 'delayq' ? SERVER_SCRIPT : system.slice('delayq:'.length);
      const { server, httpPort } = await startDelayq(script, redis.port);
      const client = new DelayqClient({ url: `http://127.0.0.1:${httpPort}` });
      const body = JSON.stringify(bodyFor(0)); // a string body, as a put stores it
      const fill = async () => {
        for (let i = 0; i < jobs; i += 1000)
          await client.pushBatch(Array.from({ length: Math.min(1000, jobs - i) }, () => ({ topic: TUBE, body })));
      };
      await measure(system, server, admin, drainOnly ? fill : undefined);
      await client.close();
      await server.stop();
    }
  }
  await admin.quit();
  console.log(`load average ${load()}`);
} finally {
  await cleanup();
}
