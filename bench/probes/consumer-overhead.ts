// Node CPU per consumer cycle (reserve one job, finish it), in this process, through each layer of a build:
// `store` calls the bare store, `service` calls DelayqService (job events followed, no metrics), `metered`
// the same with the metrics registered, as `delayq serve` runs it. Both on Redis (127.0.0.1:6379, or REDIS_URL) and on SQLite (a file in
// .tmp/). CONSUMERS loops (10) run at once, so each turn carries several calls, as a drain over many
// connections does. The jobs are pushed first (not measured); process.cpuUsage() over the drain / jobs is the
// figure. Builds are alternated per round: `dist` (this tree's dist/, `npm run build` first) or `dist:PATH`
// (another build's dist/, placed inside this tree, e.g. .tmp/base/dist, so its imports resolve).
// Usage: npx tsx bench/probes/consumer-overhead.ts [JOBS=5000] [ROUNDS=3] [BUILD…] [store=redis,sqlite,memory]
//        [layers=store,service,metered] [consumers=N] [prof]
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { mkdirSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import type * as ServiceModule from '../../src/service/service.js';
import type * as RedisModule from '../../src/store/redis/redis-store.js';
import type * as SqliteModule from '../../src/store/sqlite/sqlite-store.js';
import type * as MetricsModule from '../../src/observe/service-metrics.js';
import type { ReserveResult, Store } from '../../src/store/store.js';
import type { NewJob, Reservation } from '../../src/core/job.js';
import { cleanup, startRedis } from '../servers.js';
import { startCpuProfile } from './cpu-profile.js';

const args = process.argv.slice(2);
const numbers = args.filter((a) => /^\d+$/.test(a)).map(Number);
const jobs = numbers[0] ?? 5000;
const rounds = numbers[1] ?? 3;
const option = (name: string, fallback: string): string =>
  args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1) ?? fallback;
const storeKinds = option('store', 'redis,sqlite,memory').split(',');
const layers = option('layers', 'store,service,metered').split(',');
const consumers = Number(option('consumers', '10'));
/** `prof`: a CPU profile of each drain of the last round, in .tmp/ (read with profile-summary.ts). */
const profile = args.includes('prof');
const builds = args.filter((a) => a === 'dist' || a.startsWith('dist:'));
if (builds.length === 0) builds.push('dist');
const here = new URL('../..', import.meta.url).pathname;
const redisUrl = process.env.REDIS_URL ?? `redis://127.0.0.1:${(await startRedis()).port}`;
const admin = new Redis(redisUrl);
/** Script calls Redis has run so far (each is one round trip of the store's; commands inside them not counted). */
const redisCommands = async (): Promise<number> =>
  Number(/cmdstat_evalsha:calls=(\d+)/.exec(await admin.info('commandstats'))?.[1] ?? 0);
const tmp = join(here, '.tmp', 'consumer-overhead');
mkdirSync(tmp, { recursive: true });

interface Build {
  name: string;
  DelayqService: typeof ServiceModule.DelayqService;
  RedisStore: typeof RedisModule.RedisStore;
  SqliteStore: typeof SqliteModule.SqliteStore;
  registerServiceMetrics: typeof MetricsModule.registerServiceMetrics;
}

async function load(name: string): Promise<Build> {
  const root = name === 'dist' ? join(here, 'dist') : resolve(name.slice(5));
  const at = (path: string): string => join(root, path);
  const service = (await import(at('service/service.js'))) as typeof ServiceModule;
  const redis = (await import(at('store/redis/redis-store.js'))) as typeof RedisModule;
  const sqlite = (await import(at('store/sqlite/sqlite-store.js'))) as typeof SqliteModule;
  const metrics = (await import(at('observe/service-metrics.js'))) as typeof MetricsModule;
  return {
    name,
    DelayqService: service.DelayqService,
    RedisStore: redis.RedisStore,
    SqliteStore: sqlite.SqliteStore,
    registerServiceMetrics: metrics.registerServiceMetrics,
  };
}

let run = 0;
function newStore(build: Build, kind: string): Store {
  run++;
  if (kind === 'redis')
    return new build.RedisStore({ url: redisUrl, prefix: `co${process.pid}-${run}`, partitions: 1, nodeId: 'probe' });
  if (kind === 'memory') return new build.SqliteStore({ path: ':memory:', nodeId: 'probe' });
  const path = join(tmp, `co-${run}.db`);
  rmSync(path, { force: true });
  return new build.SqliteStore({ path, nodeId: 'probe' });
}

/**
 * `memory`: every job is reserved up front, then reserve hands those reservations out and finish answers at
 * once, without I/O, so what the drain costs is the layers above the store and nothing else.
 */
async function answerFromMemory(store: Store, topic: string): Promise<void> {
  const held: Reservation[] = [];
  let shape: 'array' | 'result' = 'result';
  for (;;) {
    const answer: ReserveAnswer = await store.reserve([topic], 1000, Date.now());
    if (Array.isArray(answer)) shape = 'array';
    const got = reservationsOf(answer);
    if (got.length === 0) break;
    held.push(...got);
  }
  const finished = new Map(
    held.map((r) => [r.job.id, { ok: true as const, value: { ...r.job, state: 'finished' as const } }]),
  );
  let next = 0;
  const take = (count: number): Reservation[] => held.slice(next, (next += count));
  store.reserve = (_topics, count) =>
    Promise.resolve(
      shape === 'array' ? (take(count) as unknown as ReserveResult) : { reservations: take(count), expired: [] },
    );
  store.finish = (id) => Promise.resolve(finished.get(id) ?? { ok: false as const, reason: 'not_found' as const });
}

/** Builds before main's 35286ce answer reserve with the reservations alone, later ones with { reservations, expired }. */
type ReserveAnswer = ReserveResult | Reservation[];
function reservationsOf(answer: ReserveAnswer): Reservation[] {
  return Array.isArray(answer) ? answer : answer.reservations;
}

async function fill(store: Store, topic: string): Promise<void> {
  const now = Date.now();
  for (let i = 0; i < jobs; i += 1000) {
    const batch = Array.from({ length: Math.min(1000, jobs - i) }, (_, k): NewJob => ({
      id: `j${i + k}`,
      topic,
      tag: null,
      bizKey: null,
      body: '{"n":1}',
      priority: 0,
      runAt: now,
      ttrMs: 60_000,
      ttlMs: null,
      retry: { maxAttempts: 3, backoff: { type: 'fixed', delayMs: 1000 } },
    }));
    await store.pushMany(batch, now);
  }
}

interface Figures {
  cpuUs: number;
  rate: number;
  /** Redis script calls per job (0 on SQLite). */
  commands: number;
}

/** CPU µs per job of draining every job with `consumers` loops of reserve-one-then-finish. */
async function drain(kind: string, cycle: () => Promise<boolean>, profileTo?: string): Promise<Figures> {
  const commandsBefore = kind === 'redis' ? await redisCommands() : 0;
  const stopProfile = profileTo === undefined ? undefined : await startCpuProfile();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: consumers }, async () => {
      while (await cycle());
    }),
  );
  const spent = process.cpuUsage(cpu);
  const seconds = (performance.now() - started) / 1000;
  if (stopProfile) await stopProfile(profileTo!);
  // The events of the last jobs may still wait for their append window: let them out before counting.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const commands = kind === 'redis' ? (await redisCommands()) - commandsBefore : 0;
  return { cpuUs: (spent.user + spent.system) / jobs, rate: jobs / seconds, commands: commands / jobs };
}

async function measure(build: Build, kind: string, layer: string, profileTo?: string): Promise<Figures> {
  const topic = 'probe';
  const store = newStore(build, kind);
  if (layer === 'store') {
    await store.open();
    await fill(store, topic);
    if (kind === 'memory') await answerFromMemory(store, topic);
    try {
      return await drain(
        kind,
        async () => {
          const now = Date.now();
          const [r] = reservationsOf(await store.reserve([topic], 1, now));
          if (!r) return false;
          const outcome = await store.finish(r.job.id, r.token, Date.now());
          if (!outcome.ok) throw new Error(`finish refused: ${outcome.reason}`);
          return true;
        },
        profileTo,
      );
    } finally {
      await store.close();
    }
  }
  const service = new build.DelayqService({ store, runTimer: false });
  const stopMetrics =
    layer === 'metered'
      ? build.registerServiceMetrics(service, new Registry(), { topicLabelLimit: 100, statsCacheMs: 1000 })
      : () => undefined;
  await service.start();
  await fill(service.store, topic);
  if (kind === 'memory') await answerFromMemory(store, topic);
  try {
    return await drain(
      kind,
      async () => {
        const [r] = await service.reserve({ topics: [topic], count: 1 });
        if (!r) return false;
        await service.finish(r.job.id, r.token);
        return true;
      },
      profileTo,
    );
  } finally {
    stopMetrics();
    await service.close();
  }
}

const loaded = await Promise.all(builds.map(load));
const results = new Map<string, Figures[]>();
console.log(
  `consumer-overhead: ${jobs} jobs, ${consumers} consumers, ${rounds} rounds; load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
// Round 0 warms the JIT up and is not counted.
for (let round = 0; round <= rounds; round++) {
  for (const kind of storeKinds) {
    for (const layer of layers) {
      for (const build of loaded) {
        const file = join(here, '.tmp', `consumer-${kind}-${layer}-${loaded.indexOf(build)}.cpuprofile`);
        const r = await measure(build, kind, layer, profile && round === rounds ? file : undefined);
        if (round === 0) continue;
        const key = `${kind} ${layer} ${build.name}`;
        results.set(key, [...(results.get(key) ?? []), r]);
        console.log(
          `round ${round}  ${key.padEnd(40)} ${r.cpuUs.toFixed(1)} µs/job  ${Math.round(r.rate)} jobs/s` +
            (kind === 'redis' ? `  ${r.commands.toFixed(2)} script calls/job` : ''),
        );
      }
    }
  }
}
console.log(
  `\nmedian (range) CPU µs per reserve+finish, script calls per job on Redis; load ${loadavg()[0]!.toFixed(2)}`,
);
const median = (values: number[]): string => {
  const sorted = [...values].sort((a, b) => a - b);
  return `${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} (${sorted[0]!.toFixed(1)}–${sorted.at(-1)!.toFixed(1)})`;
};
for (const [key, list] of results) {
  const commands = key.startsWith('redis')
    ? `  ${median(list.map((r) => r.commands * 100)).replace(/\d+\.\d/g, (n) => (Number(n) / 100).toFixed(2))}`
    : '';
  console.log(`${key.padEnd(40)} ${median(list.map((r) => r.cpuUs))}${commands}`);
}
admin.disconnect();
await cleanup();
rmSync(tmp, { recursive: true, force: true });
