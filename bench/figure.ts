// What a figure of BENCHMARKS.md is (figures.ts and figures-wire.ts declare them): which results hold its rows,
// its unit, the peers each row is divided by round by round, the scenario stated exactly, and what bounds it.
import { fmt } from './lib.js';

export const BULLMQ = 'BullMQ · hz 10';
export const BULLMQ_HZ100 = 'BullMQ · hz 100';
export const BEANSTALKD = 'beanstalkd';

export interface Column {
  metric: string;
  header: string;
  digits?: number;
}

export interface Figure {
  /** The heading's anchor and the key `--only` selects (see `only`). */
  id: string;
  title: (mode: Mode) => string;
  /** Result scenarios whose subjects are this figure's rows (in-process and over-the-API rows side by side). */
  scenarios: readonly string[];
  /** Only the subjects this matches, where the scenarios hold others too. */
  rows?: RegExp;
  metric: string;
  unit: string;
  better: 'higher' | 'lower';
  digits?: number;
  /** Each row is divided by these subjects' values of the same round. */
  peers: readonly string[];
  /** Other metrics, shown as their median. */
  also?: readonly Column[];
  /** The scenario, exactly: preload, counts, lead time, due spread, concurrency, batch sizes. */
  scenario: (mode: Mode) => string;
  /** The `--only` keys that run it. */
  only: string;
  /** The scenario whose rounds' load and order it shares, when not its own id. */
  rounds?: string;
  /** Why rounds are not alternated across subjects, where they cannot be. */
  notAlternated?: string;
  /** What bounds it, in a few words. */
  bounds: string;
  /** Where that is explained, from the repository's root (docs/performance.md#…). */
  boundsDoc: string;
  /** No ratio for a row whose median is below this (a ratio to about nothing means nothing). */
  ratioFloor?: number;
  /**
   * `detail`: on the run's second page (delayq on its own: per protocol, per request, restore, bulk cancel,
   * schedules, the due histogram), so BENCHMARKS.md keeps to the comparisons and stays short.
   */
  page?: 'detail';
}

export type Mode = Record<string, number>;

export const n = (mode: Mode, key: string) => fmt(mode[key] ?? Number.NaN);
export const CPU: readonly Column[] = [
  { metric: 'clientUs', header: 'benchmark-process CPU µs/job', digits: 1 },
  { metric: 'serverUs', header: 'server CPU µs/job', digits: 1 },
  { metric: 'cmds', header: 'Redis commands/job', digits: 2 },
];
export const LATENESS: readonly Column[] = [
  { metric: 'p50', header: 'p50 ms' },
  { metric: 'max', header: 'max ms' },
  { metric: 'missing', header: 'not delivered' },
  { metric: 'producerLag', header: 'producer behind, ms' },
];
