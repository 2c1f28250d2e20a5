// The command line of bench/run.ts: the mode's counts and the options that change them (bench/README.md).
import { basename, dirname, join, resolve } from 'node:path';
import { DEFAULT_PAGE, REPO_ROOT } from './render.js';

/**
 * Scenarios a quick run (CI) leaves out unless `--only` names them: each starts servers of its own and takes
 * tens of seconds even with small counts.
 */
export const NAMED_ONLY_WHEN_QUICK: readonly string[] = ['http-floor', 'bs-drain', 'late-api'];

export interface BenchOptions {
  quick: boolean;
  runs: number;
  /** The counts of each scenario, recorded with the results so the page can state them. */
  mode: Record<string, number>;
  pending: number;
  withMariadb: boolean;
  only: string[] | undefined;
  /** A subject's measurement that has not ended by then is given up, and the run goes on. */
  measureLimitMs: number;
  /** Put the scenarios measured into the results file already there (merge-run.ts). */
  merge: boolean;
  systems: string[] | undefined;
  partitions: number;
  /** The page, the results file and the lateness chart. */
  out: string;
  jsonPath: string;
  chartPath: string;
  watchdogMs: number;
  /** How long each round watches the machine, idle, before it starts. */
  quietMs: number;
  /** The command as typed, for the page. */
  command: string;
}

export function parseOptions(argv: readonly string[]): BenchOptions {
  const flag = (name: string) => argv.includes(`--${name}`);
  const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const quick = flag('quick');
  const counts = quick
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
        bsJobs: 2000,
        lateApiJobs: 1000,
        lateApiLeadMs: 1500,
        groupsJobs: 5000,
        groupWaitBacklog: 10_000,
        debouncePushes: 10_000,
        debounceIds: 100,
        cliRuns: 3,
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
        dueJobs: 10_000_000,
        bulkCancel: 100_000,
        bsJobs: 100_000,
        lateApiJobs: 30_000,
        lateApiLeadMs: 5000,
        groupsJobs: 100_000,
        groupWaitBacklog: 100_000,
        debouncePushes: 100_000,
        debounceIds: 1000,
        cliRuns: 10,
      };
  if (quick && option('pending')) throw new Error('--pending is a full-mode option');
  if (flag('merge') && !option('only'))
    throw new Error('--merge measures the scenarios --only names into the results file');
  // The lateness chart is drawn from every subject's samples, which the results file does not keep.
  if (
    flag('merge') &&
    option('only')!
      .split(',')
      .some((s) => ['late1k', 'late5k', 'pending'].includes(s))
  )
    throw new Error('--merge cannot take late1k, late5k or pending: their chart needs the whole run');
  const runs = Number(option('runs') ?? counts.runs);
  const pending = Number(option('pending') ?? counts.pending);
  const mode = {
    ...counts,
    runs,
    pending,
    restore: Number(option('restore') ?? counts.restore),
    dueJobs: Number(option('due-jobs') ?? counts.dueJobs),
    bulkCancel: Number(option('bulk-cancel-jobs') ?? counts.bulkCancel),
    lateApiJobs: Number(option('late-api-jobs') ?? counts.lateApiJobs),
  };
  // Quick mode is a smoke run: its numbers go to the git-ignored .tmp/, never over the full results.
  const out = resolve(option('out') ?? (quick ? join(REPO_ROOT, '.tmp/benchmarks-quick.md') : DEFAULT_PAGE));
  const resultsDir = quick || option('out') ? dirname(out) : join(REPO_ROOT, 'bench/results');
  const base = basename(out).replace(/\.md$/, '').toLowerCase();
  return {
    quick,
    runs,
    mode,
    pending,
    withMariadb: flag('mariadb') || (!quick && !flag('no-mariadb')),
    only: option('only')?.split(','),
    merge: flag('merge'),
    systems: option('systems')?.split(','),
    partitions: Number(option('partitions') ?? 1),
    out,
    jsonPath: join(resultsDir, `${base}.json`),
    chartPath: join(resultsDir, `${base}-lateness.svg`),
    // Bounded time, whatever happens: the watchdog cleans up and exits non-zero.
    watchdogMs: option('watchdog-s')
      ? Number(option('watchdog-s')) * 1000
      : quick
        ? 420_000
        : (90 + 15 * Math.ceil(pending / 1_000_000)) * 60_000,
    quietMs: quick ? 100 : 1000,
    // One subject through one scenario; the longest on record (a 1M preload, a 10M histogram) took minutes.
    measureLimitMs: Number(option('measure-limit-s') ?? (quick ? 180 : 900)) * 1000,
    command: commandLine(quick, argv),
  };
}

/** `npm run bench:quick` or `npm run bench`, with the options given after `--`. */
function commandLine(quick: boolean, argv: readonly string[]): string {
  const rest = quick ? argv.filter((a) => a !== '--quick') : argv;
  return `npm run ${quick ? 'bench:quick' : 'bench'}${rest.length ? ` -- ${rest.join(' ')}` : ''}`;
}
