// The command line of `npm run bench:scale` (bench/scale/run.ts): how far to load, which shapes, where to write,
// and the counts of each measurement, smaller on a short run (`--max` up to 100k) so a smoke run takes seconds.
import { dirname, join, resolve } from 'node:path';
import { REPO_ROOT, SCALE_PAGE } from '../render.js';

export const SHAPES = ['embedded', 'redis', 'postgres', 'mariadb', 'cluster'] as const;
export type ShapeKey = (typeof SHAPES)[number];
/** Backlogs each shape is measured at, up to `--max` (and at `--max` itself). */
export const CHECKPOINTS = [0, 100_000, 1_000_000, 3_000_000, 10_000_000] as const;

export interface ScaleOptions {
  max: number;
  shapes: ShapeKey[];
  checkpoints: number[];
  /** BullMQ beside the shapes, loaded to at most this (0: not measured). */
  bullmqMax: number;
  /** A bulk cancel and a purge at each shape's largest backlog (operations.ts); `--no-ops` leaves them out. */
  ops: boolean;
  /** Keep the results file's other shapes: this run's shapes replace only their own points. */
  merge: boolean;
  counts: ScaleCounts;
  /** The page; the results file and charts go beside it. */
  out: string;
  jsonPath: string;
  watchdogMs: number;
  command: string;
}

export interface ScaleCounts {
  /** Jobs pushed in batches of 1000 (4 batches in flight) to time the batch push rate. */
  batchJobs: number;
  /** Single pushes (one POST /v1/jobs each, 100 in flight) to time the single push rate. */
  singleJobs: number;
  /** Seconds of the 1k due/s stream beside the backlog. */
  streamS: number;
  /** Times each read is taken at each backlog. */
  reads: number;
  /**
   * Reads of each path made and not recorded before those: the server restarts at every backlog, and a path's
   * first runs in a fresh process are not what a running server answers. Absent in runs before 2026-11-29.
   */
  warmReads?: number;
}

export function parseScaleOptions(argv: readonly string[]): ScaleOptions {
  const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const max = Number(option('max') ?? 10_000_000);
  if (!Number.isInteger(max) || max < 1) throw new Error(`--max: a whole number of jobs, not ${option('max')}`);
  const shapes = (option('shapes')?.split(',') ?? [...SHAPES]) as ShapeKey[];
  for (const s of shapes) if (!SHAPES.includes(s)) throw new Error(`--shapes: ${s} is none of ${SHAPES.join(', ')}`);
  const short = max <= 100_000;
  const counts: ScaleCounts = {
    batchJobs: Number(option('batch-jobs') ?? (short ? 2000 : 50_000)),
    singleJobs: Number(option('single-jobs') ?? (short ? 1000 : 20_000)),
    streamS: Number(option('stream-s') ?? (short ? 1 : 10)),
    reads: Number(option('reads') ?? (short ? 3 : 5)),
    warmReads: Number(option('warm-reads') ?? (short ? 1 : 3)),
  };
  const out = resolve(option('out') ?? SCALE_PAGE);
  const bullmqMax = argv.includes('--no-bullmq') ? 0 : Number(option('bullmq-max') ?? max);
  return {
    max,
    shapes,
    checkpoints: checkpointsUpTo(max),
    bullmqMax,
    ops: !argv.includes('--no-ops'),
    merge: argv.includes('--merge'),
    counts,
    out,
    jsonPath: join(dirname(out), `${out.split('/').pop()!.replace(/\.md$/, '')}.json`),
    // Bounded time whatever happens: the watchdog cleans up and exits non-zero.
    watchdogMs: Number(option('watchdog-s') ?? (short ? 300 : 4 * 3600)) * 1000,
    command: `npm run bench:scale${argv.length ? ` -- ${argv.join(' ')}` : ''}`,
  };
}

/** The standard backlogs below `max`, then `max`. */
export function checkpointsUpTo(max: number): number[] {
  return [...CHECKPOINTS.filter((c) => c < max), max];
}

/** Where the results of a run go by default: the page in bench/results/, beside BENCHMARKS.md's. */
export const DEFAULT_SCALE_JSON = join(REPO_ROOT, 'bench/results/scale.json');
