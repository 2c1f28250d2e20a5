// delayq against BullMQ and beanstalkd, in one run on one machine. Writes BENCHMARKS.md (full mode) or
// .tmp/benchmarks-quick.md (--quick, for CI) from the run's results file, with its charts. Options and the
// ways to run one part: bench/README.md.
//
//   npm run bench                      full mode: 3 alternating rounds per scenario (≈ 35 min on an idle host)
//   npm run bench:quick                quick mode (CI): small counts, 1 round
//   npm run bench -- --render-only     BENCHMARKS.md again from bench/results/benchmarks.json, measuring nothing
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, relative } from 'node:path';
import { ensureServerBuilt } from './build-server.js';
import { withDeadline } from './lib.js';
import { runBulkCancel } from './bulk-cancel.js';
import { runDueHistogram, type DueStore } from './due-histogram-speed.js';
import { API_BULK_RATE } from './figures.js';
import { HostLoad, rotate, type RoundLoad } from './host-load.js';
import { httpRounds } from './http-bench.js';
import { httpFloorRounds } from './http-floor.js';
import { beanstalkdRounds } from './beanstalkd-drain.js';
import { cliStartRounds } from './cli-start.js';
import { latenessBreakdownRounds } from './lateness-breakdown.js';
import { measureRestore } from './journal-restore.js';
import { mergeIntoRun } from './merge-run.js';
import { flowControlRounds } from './flow-control.js';
import { describeMachine } from './machine.js';
import { NAMED_ONLY_WHEN_QUICK, parseOptions } from './options.js';
import { drainRounds } from './protocol-drain.js';
import { REPO_ROOT, renderOnly, writeReport } from './render.js';
import { Results } from './results.js';
import { profiler, type RunContext } from './run-context.js';
import { toJson, type RunRecord } from './run-record.js';
import { runScheduleFires } from './schedule-fires.js';
import { burst, enqueue, enqueueBulk, lateness, preload, type LatenessResult } from './scenarios.js';
import { cleanup, startRedis } from './servers.js';
import type { Subject } from './subject.js';
import { BeanstalkdSubject } from './subjects/beanstalkd-subject.js';
import { BullmqSubject } from './subjects/bullmq-subject.js';
import { DelayqBeanstalkdSubject } from './subjects/delayq-beanstalkd-subject.js';
import { RedisFloorSubject } from './subjects/redis-floor-subject.js';
import { DelayqHttpSubject } from './subjects/delayq-http-subject.js';
import { DelayqSubject } from './subjects/delayq-subject.js';
import { MARIADB, POSTGRES } from './subjects/sql-databases.js';
import { latenessChart } from './svg-chart.js';

const argv = process.argv.slice(2);
if (argv.includes('--render-only')) {
  for (const file of renderOnly(argv)) process.stderr.write(`wrote ${relative(REPO_ROOT, file)}\n`);
  process.exit(0);
}
const opts = parseOptions(argv);
const { mode, runs, quick } = opts;

const watchdog = setTimeout(() => {
  process.stderr.write(`bench: watchdog fired after ${opts.watchdogMs / 1000} s; stopping servers\n`);
  void cleanup().finally(() => process.exit(2));
}, opts.watchdogMs);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void cleanup().finally(() => process.exit(130)));
}

const log = (line: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const want = (scenario: string) =>
  opts.only ? opts.only.includes(scenario) : !(quick && NAMED_ONLY_WHEN_QUICK.includes(scenario));

/** Where the run's checkpoint goes (checkpoint() in main). */
const checkpointPath = opts.jsonPath.replace(/\.json$/, '.partial.json');

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadBefore = loadavg();
  const machine = describeMachine();
  const redis = await startRedis();
  log(`benchmark Redis on 127.0.0.1:${redis.port}; mode ${quick ? 'quick' : 'full'}, ${runs} round(s)`);

  const make = {
    embedded: () => new DelayqSubject({ kind: 'sqlite' }),
    redis: () => new DelayqSubject({ kind: 'redis', port: redis.port, partitions: opts.partitions }),
    postgres: () =>
      new DelayqSubject({ kind: 'journal', port: redis.port, sql: POSTGRES, partitions: opts.partitions }),
    mariadb: () => new DelayqSubject({ kind: 'journal', port: redis.port, sql: MARIADB, partitions: opts.partitions }),
    bull10: () => new BullmqSubject(redis.port, 10),
    bull100: () => new BullmqSubject(redis.port, 100),
    beanstalkd: () => new BeanstalkdSubject(),
    bsdelayq: () => new DelayqBeanstalkdSubject({ kind: 'redis', port: redis.port }),
    'bsdelayq-embedded': () => new DelayqBeanstalkdSubject({ kind: 'sqlite' }),
    'bs-floor': () => new RedisFloorSubject(redis.port),
    // Over the API: the server in its own process, the SDK (client + Worker) or a plain-HTTP consumer.
    'api-embedded-sdk': () => new DelayqHttpSubject({ kind: 'sqlite' }, 'sdk'),
    'api-embedded-plain': () => new DelayqHttpSubject({ kind: 'sqlite' }, 'plain'),
    'api-redis-sdk': () => new DelayqHttpSubject({ kind: 'redis', port: redis.port }, 'sdk'),
    'api-redis-plain': () => new DelayqHttpSubject({ kind: 'redis', port: redis.port }, 'plain'),
    'api-redis-fetch': () => new DelayqHttpSubject({ kind: 'redis', port: redis.port }, 'fetch'),
    'api-redis-python': () => new DelayqHttpSubject({ kind: 'redis', port: redis.port }, 'python'),
    'api-postgres-sdk': () => new DelayqHttpSubject({ kind: 'journal', port: redis.port, sql: POSTGRES }, 'sdk'),
    'api-postgres-plain': () => new DelayqHttpSubject({ kind: 'journal', port: redis.port, sql: POSTGRES }, 'plain'),
  };
  type Key = keyof typeof make;
  const pick = (keys: readonly Key[]): Key[] => keys.filter((k) => !opts.systems || opts.systems.includes(k));
  const journals: Key[] = opts.withMariadb ? ['postgres', 'mariadb'] : ['postgres'];
  // Quick mode (CI) keeps the over-the-API part to Redis, so it stays under a minute, unless --systems names others.
  const api: Key[] =
    quick && !opts.systems
      ? ['api-redis-sdk', 'api-redis-plain']
      : [
          'api-embedded-sdk',
          'api-embedded-plain',
          'api-redis-sdk',
          'api-redis-plain',
          'api-postgres-sdk',
          'api-postgres-plain',
        ];
  // Single pushes from other plain clients: in the push scenario only (their consumer is the plain one above);
  // not in quick mode unless --systems names them (each is a server and its warm-up more).
  const pushClients: Key[] = quick && !opts.systems ? [] : ['api-redis-fetch', 'api-redis-python'];
  /** Over-the-API figures are kept under their own scenario names (`api-enqueue`…), rendered beside the in-process ones. */
  const scenarioOf = (key: Key, scenario: string) => (key.startsWith('api-') ? `api-${scenario}` : scenario);
  const results = new Results();
  const hostLoad = new HostLoad(opts.quietMs);
  const notes = new Map<string, string>();
  const latenessRuns = new Map<string, LatenessResult[]>();
  const failures: string[] = [];
  if (
    want('http') ||
    want('http-floor') ||
    want('late-api') ||
    want('groups') ||
    want('group-wait') ||
    want('groups-redis') ||
    want('group-wait-redis') ||
    want('debounce') ||
    want('cli') ||
    ((want('enqueue') || want('late1k') || want('burst')) && pick([...api, ...pushClients]).length > 0)
  )
    ensureServerBuilt(log);

  let current = '';
  let round = 1;
  let roundEntry: RoundLoad | undefined;
  const add = (scenario: string, subject: string, metric: string, value: number | undefined) =>
    results.add(scenario, subject, metric, value, round);

  /** One system through one scenario; a failure is reported and the run goes on with the next. */
  async function measure(key: Key, fn: (s: Subject) => Promise<void>): Promise<void> {
    const subject = make[key]();
    notes.set(subject.name, subject.note ?? '');
    roundEntry?.order.push(subject.name);
    try {
      await withDeadline(
        (async () => {
          await subject.open();
          await fn(subject);
        })(),
        opts.measureLimitMs,
        'its measurement',
      );
    } catch (err) {
      failures.push(`${current} · ${subject.name}: ${(err as Error).message}`);
      log(`FAILED ${current} · ${subject.name}: ${(err as Error).stack ?? String(err)}`);
    } finally {
      await withDeadline(subject.close(), 60_000, 'its close').catch((err: unknown) =>
        failures.push(`${current} · ${subject.name}: close: ${(err as Error).message}`),
      );
    }
  }

  /** Round `run` of a scenario: the host's load around it; `fn` gets the list to name its subjects in, in order. */
  async function inRound(
    scenario: string,
    run: number,
    line: string,
    fn: (order: string[]) => Promise<void>,
  ): Promise<void> {
    current = scenario;
    round = run;
    log(line);
    const { entry, end } = await hostLoad.begin(scenario, run);
    roundEntry = entry;
    try {
      await fn(entry.order);
    } finally {
      end();
      roundEntry = undefined;
      checkpoint(`${scenario} round ${run}`);
    }
  }

  /** Each of `keys` through `fn`, in this round's order. */
  async function each(keys: readonly Key[], run: number, fn: (key: Key, s: Subject) => Promise<void>): Promise<void> {
    for (const key of rotate(pick(keys), run)) await measure(key, (s) => fn(key, s));
  }

  /** The run's record as it stands; `provenance` marks a checkpoint. */
  function recordNow(provenance?: string): RunRecord {
    return {
      info: {
        quick,
        runs,
        pending: opts.pending,
        startedAt: startedAt.toISOString(),
        finishedAt: new Date().toISOString(),
        machine,
        ...(provenance ? { provenance } : {}),
        loadBefore: loadBefore.map((x) => Math.round(x * 100) / 100),
        loadAfter: loadavg().map((x) => Math.round(x * 100) / 100),
        command: opts.command,
        mode,
        notes: Object.fromEntries(notes),
        failures,
        chartFile: latenessRuns.size ? relative(REPO_ROOT, opts.chartPath) : '',
      },
      results,
      rounds: hostLoad.rounds,
    };
  }

  /**
   * After each round, what the run has measured so far goes to a checkpoint file beside the results file (and
   * the lateness chart so far), removed at the end: a run killed or stuck before its end still leaves its figures,
   * rendered with `npm run bench -- --render-only --from=<checkpoint>`.
   */
  function checkpoint(after: string): void {
    const note = `A checkpoint of a run that had not ended: the scenarios measured up to ${after}, ${new Date().toISOString().slice(11, 16)} UTC.`;
    mkdirSync(dirname(checkpointPath), { recursive: true });
    if (latenessRuns.size) writeFileSync(opts.chartPath, latenessSvg(results, latenessRuns, opts.pending));
    writeFileSync(checkpointPath, toJson(recordNow(note)));
  }

  const profiled = profiler(add);
  const ctx: RunContext = {
    quick,
    runs,
    mode,
    redisPort: redis.port,
    add,
    failures,
    inRound,
    each: (keys, run, fn) => each(keys as Key[], run, fn),
    profiled,
    log,
  };

  function recordLateness(scenario: string, system: string, r: LatenessResult): void {
    add(scenario, system, 'p50', r.p50);
    add(scenario, system, 'p99', r.p99);
    add(scenario, system, 'max', r.max);
    add(scenario, system, 'missing', r.missing);
    add(scenario, system, 'producerLag', r.producerLagMs);
    if (r.missing > 0) failures.push(`${scenario} · ${system}: ${r.missing} job(s) never delivered`);
    const key = `${scenario}|${system}`;
    latenessRuns.set(key, [...(latenessRuns.get(key) ?? []), r]);
  }

  // Unrecorded warm-up, so the first system measured does not pay for the JIT of code the others share.
  current = 'warm-up';
  log('warm-up (not recorded)');
  for (const key of pick(['embedded', 'redis', 'bull10'])) {
    await measure(key, async (s) => {
      await enqueue(s, quick ? 500 : 5000);
      await lateness(s, 1000, quick ? 200 : 1000, quick ? 200 : 500);
    });
  }

  const pushRates = new Map<string, number>();
  for (let run = 1; run <= runs; run++) {
    if (want('enqueue'))
      await inRound('enqueue', run, `round ${run}/${runs}: enqueue, 100 in flight`, () =>
        each(
          ['embedded', 'redis', ...journals, 'bull10', 'beanstalkd', 'bsdelayq', ...api, ...pushClients],
          run,
          async (key, s) => {
            let r = { jobsPerS: 0, bytesPerJob: undefined as number | undefined };
            await profiled(scenarioOf(key, 'enqueue'), s, mode['enqueue']!, async () => {
              r = await enqueue(s, mode['enqueue']!);
            });
            add(scenarioOf(key, 'enqueue'), s.name, 'rate', r.jobsPerS);
            if (!key.startsWith('api-')) add('memory', s.name, 'bytes', r.bytesPerJob);
            pushRates.set(s.name, r.jobsPerS);
          },
        ),
      );
    if (want('bulk'))
      await inRound('bulk', run, `round ${run}/${runs}: enqueue, bulk ×1000`, () =>
        each(['embedded', 'redis', ...journals, 'bull10'], run, async (_key, s) => {
          const rate = await enqueueBulk(s, mode['bulk']!);
          add('bulk', s.name, 'rate', rate);
          pushRates.set(s.name, Math.max(rate, pushRates.get(s.name) ?? 0));
        }),
      );
    if (want('beyond'))
      await inRound('beyond', run, `round ${run}/${runs}: memory beyond the load horizon`, () =>
        each(['postgres'], run, async (_key, s) => {
          const r = await enqueue(s, mode['beyond']!, 2 * 3_600_000);
          add('memory', `${s.name}, due in 2 h (beyond the 1 h horizon)`, 'bytes', r.bytesPerJob);
        }),
      );
    for (const [scenario, rate, seconds, keys] of [
      ['late1k', 1000, mode['lateS']!, ['embedded', 'redis', ...journals, 'bull10', 'bull100', 'beanstalkd', ...api]],
      ['late5k', 5000, mode['late5kS']!, ['embedded', 'redis', 'postgres', 'bull10', 'bull100', 'beanstalkd']],
    ] as const) {
      if (!want(scenario)) continue;
      await inRound(scenario, run, `round ${run}/${runs}: lateness at ${rate}/s for ${seconds} s`, () =>
        each(keys, run, async (key, s) => {
          await profiled(scenarioOf(key, scenario), s, Math.round(rate * seconds), async () => {
            recordLateness(scenarioOf(key, scenario), s.name, await lateness(s, rate, seconds * 1000, mode['leadMs']));
          });
        }),
      );
    }
    if (want('burst'))
      await inRound('burst', run, `round ${run}/${runs}: burst of ${mode['burst']} due at once`, () =>
        each(['embedded', 'redis', 'postgres', 'bull10', 'beanstalkd', 'bsdelayq', ...api], run, async (key, s) => {
          // Over the API the burst is pushed with the batch endpoint, far faster than the single pushes measured.
          const rate = key.startsWith('api-') ? API_BULK_RATE : (pushRates.get(s.name) ?? 5000);
          const leadMs = Math.ceil((mode['burst']! / rate) * 1000 * 1.5) + mode['burstSlackMs']!;
          const scenario = scenarioOf(key, 'burst');
          await profiled(scenario, s, mode['burst']!, async () => {
            const r = await burst(s, mode['burst']!, leadMs);
            add(scenario, s.name, 'rate', r.jobsPerS);
            add(scenario, s.name, 'lastLate', r.lastLateMs);
            add(scenario, s.name, 'missing', r.missing);
            if (r.missing > 0) failures.push(`burst · ${s.name}: ${r.missing} job(s) never delivered`);
            add(scenario, s.name, 'overrun', r.overrunMs);
          });
        }),
      );
  }

  // Each system is filled once and runs its rounds on that fill: the shared Redis holds one system at a time.
  if (want('pending')) {
    current = 'pending';
    log(`pending: 1k/s lateness with ${opts.pending} other jobs pending`);
    for (const key of pick(['redis', 'embedded', 'bull100', 'beanstalkd'])) {
      await measure(key, async (s) => {
        const t0 = performance.now();
        const mem0 = await s.memoryBytes();
        await preload(s, opts.pending);
        const mem1 = await s.memoryBytes();
        round = 1;
        add('pending', s.name, 'preloadS', (performance.now() - t0) / 1000);
        if (mem0 !== undefined && mem1 !== undefined) add('pending', s.name, 'bytes', (mem1 - mem0) / opts.pending);
        for (let run = 1; run <= runs; run++) {
          const { entry, end } = await hostLoad.begin('pending', run);
          entry.order.push(s.name);
          round = run;
          recordLateness('pending', s.name, await lateness(s, 1000, mode['lateS']! * 1000, mode['leadMs']));
          end();
        }
      });
    }
  }

  if (want('restore'))
    await inRound('restore', 1, `restore: ${mode['restore']} journaled jobs into an empty Redis`, () =>
      measureRestore(
        results,
        failures,
        redis.port,
        opts.withMariadb ? [POSTGRES, MARIADB] : [POSTGRES],
        mode['restore']!,
      ),
    );

  if (want('http')) await httpRounds(ctx);
  if (want('http-floor')) await httpFloorRounds(ctx);
  if (want('drain')) await drainRounds(ctx);
  if (want('bs-drain')) await beanstalkdRounds(ctx);
  if (want('late-api')) await latenessBreakdownRounds(ctx);
  const flow = {
    groups: want('groups'),
    groupWait: want('group-wait'),
    groupsRedis: want('groups-redis'),
    groupWaitRedis: want('group-wait-redis'),
    debounce: want('debounce'),
  };
  if (Object.values(flow).some(Boolean)) await flowControlRounds(ctx, flow);

  if (want('cli')) await cliStartRounds(ctx);

  if (want('due'))
    await inRound('due', 1, `due: histogram over ${mode['dueJobs']} delayed jobs`, () =>
      runDueHistogram(results, failures, mode['dueJobs']!, pick(['redis', 'embedded']) as DueStore[]),
    );
  if (want('bulk-cancel')) {
    const stores = pick(['embedded', 'redis', 'postgres']).map((k) => make[k] as () => DelayqSubject);
    await runBulkCancel(results, failures, stores, { jobs: mode['bulkCancel']!, runs }, (run, fn) =>
      inRound('bulk-cancel', run, `round ${run}/${runs}: bulk cancel of ${mode['bulkCancel']} jobs`, fn),
    );
  }
  if (want('schedules'))
    await runScheduleFires(
      results,
      failures,
      { schedules: mode['schedules']!, seconds: mode['scheduleS']!, runs },
      (run, fn) => inRound('schedules', run, `round ${run}/${runs}: ${mode['schedules']} schedules every second`, fn),
    );

  const measured = recordNow();
  const record = opts.merge ? mergeIntoRun(opts.jsonPath, measured) : measured;
  // The lateness chart only when a lateness scenario ran.
  const chart = latenessRuns.size ? [opts.chartPath] : [];
  // A clean clone has no .tmp/ yet (quick mode writes there).
  for (const file of [opts.jsonPath, opts.out, ...chart]) mkdirSync(dirname(file), { recursive: true });
  if (chart.length) writeFileSync(opts.chartPath, latenessSvg(results, latenessRuns, opts.pending));
  writeFileSync(opts.jsonPath, toJson(record));
  for (const file of [opts.jsonPath, ...chart, ...writeReport(record, opts.jsonPath, opts.out)])
    log(`wrote ${relative(REPO_ROOT, file)}`);
  rmSync(checkpointPath, { force: true });
  if (failures.length) {
    log(`${failures.length} measurement(s) failed:\n  ${failures.join('\n  ')}`);
    process.exitCode = 1;
  }
}

/** The lateness chart: per scenario, each subject's round whose p99 is the median of its rounds. */
function latenessSvg(results: Results, latenessRuns: Map<string, LatenessResult[]>, pending: number): string {
  const typical = (rounds: readonly LatenessResult[]) =>
    [...rounds].sort((a, b) => a.p99 - b.p99)[Math.floor((rounds.length - 1) / 2)];
  return latenessChart(
    [
      ['late1k', 'steady 1k due/s'],
      ['late5k', 'steady 5k due/s'],
      ['pending', `1k due/s with ${pending.toLocaleString('en-US')} pending`],
    ].map(([scenario, title]) => ({
      title: title!,
      series: results.subjects(scenario!).map((subject) => ({
        name: subject,
        samples: typical(latenessRuns.get(`${scenario}|${subject}`) ?? [])?.samples ?? [],
      })),
    })),
  );
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
