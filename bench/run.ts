// delayq against BullMQ and beanstalkd, in one run on one machine. Writes BENCHMARKS.md (full mode) or
// .tmp/benchmarks-quick.md (--quick, for CI), each with an SVG chart of lateness.
//
//   npm run bench                      full mode: 3 runs per scenario, 100k burst, 1M pending (≈ 25 min)
//   npx tsx bench/run.ts --only=late1k,pending --pending=10000000 --out=bench/results/pending-10m.md
//                                      the 1k/s scenario, then the same with 10M jobs pending (full mode only; BullMQ fills ≈ 8 GB)
//   npm run bench:quick                quick mode: small counts, 1 run, under a minute
//   options: --runs=N  --no-mariadb  --out=FILE  --partitions=N (RedisStore; default 1, the config default)
//            --restore=N (jobs in the restore scenario; default 1M, quick mode 5000)
//            --due-jobs=N (full mode: delayed jobs under the due-time histogram, default 10M)
//            --bulk-cancel-jobs=N (jobs cancelled by bizKey in scenario bulk-cancel, default 100k)
//            --watchdog-s=N (stop after N s; quick mode's default 300 s assumes an idle machine)
//   for profiling one part: --only=enqueue,bulk,beyond,late1k,late5k,burst,pending,restore,http,drain,schedules,due,bulk-cancel  --systems=redis,bull100,…
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { loadavg } from 'node:os';
import { ensureServerBuilt } from './build-server.js';
import { HttpBench } from './http-bench.js';
import { ProtocolDrain } from './protocol-drain.js';
import { runScheduleFires } from './schedule-fires.js';
import { runDueHistogram, type DueStore } from './due-histogram-speed.js';
import { runBulkCancel } from './bulk-cancel.js';
import { machine } from './lib.js';
import { report, type RunInfo } from './report.js';
import { Results, REFERENCE } from './results-table.js';
import { burst, enqueue, enqueueBulk, lateness, preload, type LatenessResult } from './scenarios.js';
import { cleanup, startRedis } from './servers.js';
import type { Subject } from './subject.js';
import { BeanstalkdSubject } from './subjects/beanstalkd-subject.js';
import { BullmqSubject } from './subjects/bullmq-subject.js';
import { DelayqBeanstalkdSubject } from './subjects/delayq-beanstalkd-subject.js';
import { DelayqSubject } from './subjects/delayq-subject.js';
import { DelayqHttpSubject } from './subjects/delayq-http-subject.js';
import { MARIADB, POSTGRES } from './subjects/sql-databases.js';
import { measureRestore } from './journal-restore.js';

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const quick = flag('quick');

const mode = quick
  ? {
      runs: 1,
      enqueue: 2000,
      bulk: 2000,
      lateS: 1,
      late5kS: 0.4,
      leadMs: 500,
      burst: 2000,
      burstSlackMs: 300,
      pending: 5000,
      httpS: 1,
      httpWarmupS: 1,
      rf: 200,
      beyond: 1000,
      drain: 5000,
      restore: 5000,
      schedules: 200,
      scheduleS: 3,
      dueJobs: 100_000,
      bulkCancel: 5000,
    }
  : {
      runs: 3,
      enqueue: 50_000,
      bulk: 50_000,
      lateS: 10,
      late5kS: 10,
      leadMs: 1000,
      burst: 100_000,
      burstSlackMs: 1000,
      pending: 1_000_000,
      httpS: 5,
      httpWarmupS: 3,
      rf: 3000,
      beyond: 20_000,
      drain: 100_000,
      restore: 1_000_000,
      schedules: 1000,
      scheduleS: 20,
      dueJobs: Number(option('due-jobs') ?? 10_000_000),
      bulkCancel: Number(option('bulk-cancel-jobs') ?? 100_000),
    };
const runs = Number(option('runs') ?? mode.runs);
/** jobs/s assumed for `POST /v1/jobs/batch` when sizing the burst's lead (an overrun is measured, not hidden). */
const API_BULK_RATE = 20_000;
const pending = Number(option('pending') ?? mode.pending);
/** Jobs in the restore scenario; a smaller count iterates faster on one part of it. */
const restoreCount = Number(option('restore') ?? mode.restore);
if (quick && option('pending')) throw new Error('--pending is a full-mode option');
const withMariadb = flag('mariadb') || (!quick && !flag('no-mariadb'));
const only = option('only')?.split(',');
const systemsWanted = option('systems')?.split(',');
/** RedisStore partitions; 1 is the config default (src/config.ts), more spread a topic over Cluster slots. */
const partitions = Number(option('partitions') ?? 1);
const want = (scenario: string) => !only || only.includes(scenario);
// Quick mode is a smoke run: its numbers go to the git-ignored .tmp/, never over the full results.
const out =
  option('out') ?? new URL(quick ? '../.tmp/benchmarks-quick.md' : '../BENCHMARKS.md', import.meta.url).pathname;
mkdirSync(dirname(out), { recursive: true });
const resultsDir = quick || option('out') ? dirname(out) : new URL('./results', import.meta.url).pathname;
const base = basename(out).replace(/\.md$/, '').toLowerCase();
const chartPath = join(resultsDir, `${base}-lateness.svg`);
const jsonPath = join(resultsDir, `${base}.json`);

// Bounded time, whatever happens: the watchdog cleans up and exits non-zero.
const WATCHDOG_MS = option('watchdog-s')
  ? Number(option('watchdog-s')) * 1000
  : quick
    ? 300_000
    : (90 + 15 * Math.ceil(pending / 1_000_000)) * 60_000;
const watchdog = setTimeout(() => {
  process.stderr.write(`bench: watchdog fired after ${WATCHDOG_MS / 1000} s; stopping servers\n`);
  void cleanup().finally(() => process.exit(2));
}, WATCHDOG_MS);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void cleanup().finally(() => process.exit(130)));
}

const log = (line: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadBefore = loadavg();
  const redis = await startRedis();
  log(`benchmark Redis on 127.0.0.1:${redis.port}; mode ${quick ? 'quick' : 'full'}, ${runs} run(s)`);

  const make = {
    embedded: () => new DelayqSubject({ kind: 'sqlite' }),
    redis: () => new DelayqSubject({ kind: 'redis', port: redis.port, partitions }),
    postgres: () => new DelayqSubject({ kind: 'journal', port: redis.port, sql: POSTGRES, partitions }),
    mariadb: () => new DelayqSubject({ kind: 'journal', port: redis.port, sql: MARIADB, partitions }),
    bull10: () => new BullmqSubject(redis.port, 10),
    bull100: () => new BullmqSubject(redis.port, 100),
    beanstalkd: () => new BeanstalkdSubject(),
    bsdelayq: () => new DelayqBeanstalkdSubject(redis.port),
    // Over the API: the server in its own process, the SDK (client + Worker) or a plain-HTTP consumer.
    'api-embedded-sdk': () => new DelayqHttpSubject({ kind: 'sqlite' }, 'sdk'),
    'api-embedded-plain': () => new DelayqHttpSubject({ kind: 'sqlite' }, 'plain'),
    'api-redis-sdk': () => new DelayqHttpSubject({ kind: 'redis', port: redis.port }, 'sdk'),
    'api-redis-plain': () => new DelayqHttpSubject({ kind: 'redis', port: redis.port }, 'plain'),
    'api-postgres-sdk': () => new DelayqHttpSubject({ kind: 'journal', port: redis.port, sql: POSTGRES }, 'sdk'),
    'api-postgres-plain': () => new DelayqHttpSubject({ kind: 'journal', port: redis.port, sql: POSTGRES }, 'plain'),
  };
  type Key = keyof typeof make;
  const pick = (keys: readonly Key[]): Key[] => keys.filter((k) => !systemsWanted || systemsWanted.includes(k));
  const journals: Key[] = withMariadb ? ['postgres', 'mariadb'] : ['postgres'];
  // Quick mode (CI) keeps the over-the-API part to Redis, so it stays under a minute, unless --systems names others.
  const api: Key[] =
    quick && !systemsWanted
      ? ['api-redis-sdk', 'api-redis-plain']
      : [
          'api-embedded-sdk',
          'api-embedded-plain',
          'api-redis-sdk',
          'api-redis-plain',
          'api-postgres-sdk',
          'api-postgres-plain',
        ];
  /** Over-the-API figures go to their own tables (`api-enqueue`…), never among the in-process ones. */
  const scenarioOf = (key: Key, scenario: string) => (key.startsWith('api-') ? `api-${scenario}` : scenario);
  const results = new Results();
  const notes = new Map<string, string>();
  const latenessRuns = new Map<string, LatenessResult[]>();

  const failures: string[] = [];
  if (want('http') || ((want('enqueue') || want('late1k') || want('burst')) && pick(api).length > 0))
    ensureServerBuilt(log);
  /** One system through one scenario; a failure is reported and the run goes on with the next. */
  async function measure(key: Key, fn: (s: Subject) => Promise<void>, scenario = current): Promise<void> {
    const subject = make[key]();
    notes.set(subject.name, subject.note ?? '');
    try {
      await subject.open();
      await fn(subject);
    } catch (err) {
      failures.push(`${scenario} · ${subject.name}: ${(err as Error).message}`);
      log(`FAILED ${scenario} · ${subject.name}: ${(err as Error).stack ?? String(err)}`);
    } finally {
      await subject
        .close()
        .catch((err: unknown) => failures.push(`${scenario} · ${subject.name}: close: ${(err as Error).message}`));
    }
  }
  let current = '';
  const scenarioStart = (name: string, line: string) => {
    current = name;
    log(line);
  };

  /** Runs fn and records where the time went: this process's CPU, the server's CPU, Redis commands. */
  async function profiled(scenario: string, s: Subject, jobs: number, fn: () => Promise<void>): Promise<void> {
    const cpu0 = process.cpuUsage();
    const server0 = await s.serverCpuMs();
    const calls0 = await s.commandCalls?.();
    await fn();
    const cpu = process.cpuUsage(cpu0);
    const server1 = await s.serverCpuMs();
    const calls1 = await s.commandCalls?.();
    results.add(scenario, s.name, 'clientUs', (cpu.user + cpu.system) / jobs);
    if (server0 !== undefined && server1 !== undefined)
      results.add(scenario, s.name, 'serverUs', ((server1 - server0) * 1000) / jobs);
    if (calls0 && calls1) {
      let calls = 0;
      for (const [name, c] of calls1) {
        if (name === 'info' || name === 'config' || name === 'flushall' || name === 'ping') continue;
        calls += c.calls - (calls0.get(name)?.calls ?? 0);
      }
      results.add(scenario, s.name, 'cmds', calls / jobs);
    }
  }

  // Unrecorded warm-up, so the first system measured does not pay for the JIT of code the others share.
  scenarioStart('warm-up', 'warm-up (not recorded)');
  for (const key of pick(['embedded', 'redis', 'bull10'])) {
    await measure(key, async (s) => {
      await enqueue(s, quick ? 500 : 5000);
      await lateness(s, 1000, quick ? 200 : 1000, quick ? 200 : 500);
    });
  }

  const pushRates = new Map<string, number>();
  for (let run = 1; run <= runs; run++) {
    scenarioStart('enqueue', `run ${run}/${runs}: enqueue, 100 in flight`);
    for (const key of pick(
      want('enqueue') ? ['embedded', 'redis', ...journals, 'bull10', 'beanstalkd', 'bsdelayq', ...api] : [],
    )) {
      await measure(key, async (s) => {
        let r = { jobsPerS: 0, bytesPerJob: undefined as number | undefined };
        await profiled(scenarioOf(key, 'enqueue'), s, mode.enqueue, async () => {
          r = await enqueue(s, mode.enqueue);
        });
        results.add(scenarioOf(key, 'enqueue'), s.name, 'rate', r.jobsPerS);
        if (!key.startsWith('api-')) results.add('memory', s.name, 'bytes', r.bytesPerJob);
        pushRates.set(s.name, r.jobsPerS);
      });
    }
    scenarioStart('bulk', `run ${run}/${runs}: enqueue, bulk ×1000`);
    for (const key of pick(want('bulk') ? ['embedded', 'redis', ...journals, 'bull10'] : [])) {
      await measure(key, async (s) => {
        const rate = await enqueueBulk(s, mode.bulk);
        results.add('bulk', s.name, 'rate', rate);
        pushRates.set(s.name, Math.max(rate, pushRates.get(s.name) ?? 0));
      });
    }
    scenarioStart('beyond', `run ${run}/${runs}: memory beyond the load horizon`);
    for (const key of pick(want('beyond') ? ['postgres'] : []))
      await measure(key, async (s) => {
        const r = await enqueue(s, mode.beyond, 2 * 3_600_000);
        results.add('memory', `${s.name}, due in 2 h (beyond the 1 h horizon)`, 'bytes', r.bytesPerJob);
      });

    for (const [scenario, rate, seconds, keys] of [
      ['late1k', 1000, mode.lateS, ['embedded', 'redis', ...journals, 'bull10', 'bull100', 'beanstalkd', ...api]],
      ['late5k', 5000, mode.late5kS, ['embedded', 'redis', 'postgres', 'bull10', 'bull100', 'beanstalkd']],
    ] as const) {
      scenarioStart(scenario, `run ${run}/${runs}: lateness at ${rate}/s for ${seconds} s`);
      for (const key of pick(want(scenario) ? keys : [])) {
        await measure(key, async (s) => {
          await profiled(scenarioOf(key, scenario), s, Math.round(rate * seconds), async () => {
            recordLateness(scenarioOf(key, scenario), s.name, await lateness(s, rate, seconds * 1000, mode.leadMs));
          });
        });
      }
    }

    scenarioStart('burst', `run ${run}/${runs}: burst of ${mode.burst} due at once`);
    for (const key of pick(
      want('burst') ? ['embedded', 'redis', 'postgres', 'bull10', 'beanstalkd', 'bsdelayq', ...api] : [],
    )) {
      await measure(key, async (s) => {
        // Over the API the burst is pushed with the batch endpoint, far faster than the single pushes measured.
        const rate = key.startsWith('api-') ? API_BULK_RATE : (pushRates.get(s.name) ?? 5000);
        const leadMs = Math.ceil((mode.burst / rate) * 1000 * 1.5) + mode.burstSlackMs;
        const scenario = scenarioOf(key, 'burst');
        await profiled(scenario, s, mode.burst, async () => {
          const r = await burst(s, mode.burst, leadMs);
          results.add(scenario, s.name, 'rate', r.jobsPerS);
          results.add(scenario, s.name, 'lastLate', r.lastLateMs);
          results.add(scenario, s.name, 'missing', r.missing);
          if (r.missing > 0) failures.push(`burst · ${s.name}: ${r.missing} job(s) never delivered`);
          results.add(scenario, s.name, 'overrun', r.overrunMs);
        });
      });
    }
  }

  function recordLateness(scenario: string, system: string, r: LatenessResult): void {
    results.add(scenario, system, 'p50', r.p50);
    results.add(scenario, system, 'p99', r.p99);
    results.add(scenario, system, 'max', r.max);
    results.add(scenario, system, 'missing', r.missing);
    results.add(scenario, system, 'producerLag', r.producerLagMs);
    if (r.missing > 0) failures.push(`${scenario} · ${system}: ${r.missing} job(s) never delivered`);
    const key = `${scenario}|${system}`;
    latenessRuns.set(key, [...(latenessRuns.get(key) ?? []), r]);
  }

  scenarioStart('pending', `pending: 1k/s lateness with ${pending} other jobs pending`);
  for (const key of pick(want('pending') ? ['redis', 'embedded', 'bull100', 'beanstalkd'] : [])) {
    await measure(key, async (s) => {
      const t0 = performance.now();
      const mem0 = await s.memoryBytes();
      await preload(s, pending);
      const mem1 = await s.memoryBytes();
      results.add('pending', s.name, 'preloadS', (performance.now() - t0) / 1000);
      if (mem0 !== undefined && mem1 !== undefined) results.add('pending', s.name, 'bytes', (mem1 - mem0) / pending);
      for (let run = 1; run <= runs; run++) {
        const r = await lateness(s, 1000, mode.lateS * 1000, mode.leadMs);
        recordLateness('pending', s.name, r);
      }
    });
  }

  scenarioStart('restore', `restore: ${restoreCount} journaled jobs into an empty Redis`);
  if (want('restore'))
    await measureRestore(results, failures, redis.port, withMariadb ? [POSTGRES, MARIADB] : [POSTGRES], restoreCount);

  const http = new HttpBench(redis.port);
  if (want('http')) log('HTTP: push single, push batch, reserve+finish');
  try {
    if (want('http')) {
      await http.open();
      // Unrecorded warm-up: the server's JIT and autocannon's connections (the first second runs ~3× slower).
      await http.pushSingle(mode.httpWarmupS);
    }
    for (let run = 1; run <= (want('http') ? runs : 0); run++) {
      for (const [name, fn] of [
        ['POST /v1/jobs (1 job, 100 connections)', () => http.pushSingle(mode.httpS)],
        ['POST /v1/jobs/batch (100 jobs, 10 connections)', () => http.pushBatch(mode.httpS)],
        ['reserve + finish, 1 loop (sequential round trips)', () => http.reserveFinish(mode.rf, 1)],
        ['reserve + finish, 10 loops at once', () => http.reserveFinish(mode.rf, 10)],
      ] as const) {
        const r = await fn().catch((err: unknown) => {
          failures.push(`http · ${name}: ${(err as Error).message}`);
          return undefined;
        });
        if (!r) continue;
        results.add('http', name, 'rate', r.jobsPerS);
        results.add('http', name, 'p50', r.p50Ms);
        results.add('http', name, 'p99', r.p99Ms);
        results.add('http', name, 'errors', r.errors);
      }
    }
  } catch (err) {
    failures.push(`http: ${(err as Error).message}`);
  } finally {
    await http.close();
  }

  // One server, each protocol in turn, alternating over the runs (the beanstalkd protocol joins when delayq serves it).
  const drain = new ProtocolDrain(redis.port);
  try {
    if (want('drain')) {
      log(`drain: a burst of ${mode.drain} ready jobs through each protocol of one server`);
      await drain.open();
      await drain.grpc(Math.min(1000, mode.drain)); // unrecorded warm-up
    }
    for (let run = 1; run <= (want('drain') ? runs : 0); run++) {
      const protocols = {
        'HTTP (SDK Worker)': (n: number) => drain.http(n),
        'gRPC reserve stream': (n: number) => drain.grpc(n),
        'beanstalkd protocol (jackd)': (n: number) => drain.beanstalkd(n),
      } as const;
      const names = Object.keys(protocols) as (keyof typeof protocols)[];
      // Each run starts with another protocol, so none always drains first.
      const order = names.map((_, i) => names[(i + run) % names.length]!);
      for (const name of order) {
        const r = await protocols[name](mode.drain).catch((err: unknown) => {
          failures.push(`drain · ${name}: ${(err as Error).message}`);
          return undefined;
        });
        if (!r) continue;
        results.add('drain', name, 'rate', r.jobsPerS);
        results.add('drain', name, 'missing', r.missing);
        if (r.missing > 0) failures.push(`drain · ${name}: ${r.missing} job(s) not finished`);
      }
    }
  } catch (err) {
    failures.push(`drain: ${(err as Error).message}`);
  } finally {
    await drain.close();
  }

  if (want('due')) await runDueHistogram(results, failures, mode.dueJobs, pick(['redis', 'embedded']) as DueStore[]);
  if (want('bulk-cancel')) {
    const stores: Key[] = pick(['embedded', 'redis', 'postgres']);
    await runBulkCancel(
      results,
      failures,
      stores.map((k) => make[k] as () => DelayqSubject),
      {
        jobs: mode.bulkCancel,
        runs,
      },
    );
  }
  if (want('schedules'))
    await runScheduleFires(results, failures, { schedules: mode.schedules, seconds: mode.scheduleS, runs });

  const info: RunInfo = {
    quick,
    runs,
    pending,
    startedAt,
    finishedAt: new Date(),
    machine: machine(),
    loadBefore,
    loadAfter: loadavg(),
    command: quick ? 'npm run bench:quick' : `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}`,
    mode: { ...mode, restore: restoreCount },
    notes,
    failures,
    chartFile: relative(dirname(out), chartPath),
  };
  const { markdown, svg } = report(results, latenessRuns, info);
  writeFileSync(out, markdown);
  writeFileSync(chartPath, svg);
  writeFileSync(jsonPath, JSON.stringify({ info: { ...info, notes: Object.fromEntries(notes) }, results }, null, 1));
  log(`wrote ${out} and ${chartPath}`);
  const ref = results.median('late1k', REFERENCE, 'p99');
  log(`delayq · Redis 1k/s p99 ${ref} ms; enqueue ${Math.round(results.median('enqueue', REFERENCE, 'rate'))}/s`);
  if (failures.length) {
    log(`${failures.length} measurement(s) failed:\n  ${failures.join('\n  ')}`);
    process.exitCode = 1;
  }
}

try {
  await main();
} catch (err) {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
} finally {
  clearTimeout(watchdog);
  await cleanup();
}
