/**
 * The store-wide figures over time (GET /v1/stats/series, docs/series.md) as the charts draw them: the windows
 * offered, the request of each, and the lines taken from an answer (rates per second, lateness, backlog).
 */
import { get, query } from './api.js';

/** The windows offered, each with the step that keeps an answer at about 360 steps or fewer. */
export const WINDOWS = {
  '15m': { label: '15 min', windowMs: 900_000, stepMs: 10_000 },
  '1h': { label: '1 h', windowMs: 3_600_000, stepMs: 10_000 },
  // Ten-second slots are kept two hours only: further back, steps must be whole five-minute slots.
  '6h': { label: '6 h', windowMs: 21_600_000, stepMs: 300_000 },
  '24h': { label: '24 h', windowMs: 86_400_000, stepMs: 300_000 },
} as const;
export type WindowKey = keyof typeof WINDOWS;
export const DEFAULT_WINDOW: WindowKey = '1h';

/** The URL's `window`, or the default when it names none of the windows. */
export const windowOf = (params: URLSearchParams): WindowKey => {
  const key = params.get('window') ?? '';
  return key in WINDOWS ? (key as WindowKey) : DEFAULT_WINDOW;
};

export interface Lateness {
  count: number;
  p50Ms: number | null;
  p99Ms: number | null;
}

export interface SeriesStep {
  at: number;
  counts: Record<string, number>;
  lateness: Lateness;
  backlog: Record<string, number> | null;
}

export interface TopicSeries {
  topic: string;
  total: { counts: Record<string, number>; lateness: Lateness };
  steps: SeriesStep[];
}

export interface SeriesAnswer {
  from: number;
  to: number;
  stepMs: number;
  slotMs: number;
  elapsedMs: number;
  topics: TopicSeries[];
}

/** One topic's figures over a window (the answer always holds the topic named, zeros when nothing happened). */
export const topicSeries = (topic: string, key: WindowKey): Promise<SeriesAnswer> => {
  const { windowMs, stepMs } = WINDOWS[key];
  return get<SeriesAnswer>(`/v1/stats/series${query({ topic, windowMs, stepMs })}`);
};

/** Every visible topic's totals over a window, in steps as wide as the window (one or two per topic). */
export const windowTotals = (key: WindowKey): Promise<SeriesAnswer> => {
  const { windowMs } = WINDOWS[key];
  return get<SeriesAnswer>(`/v1/stats/series${query({ windowMs, stepMs: windowMs })}`);
};

/** Jobs that failed an attempt: retried, or buried in the dead letters. */
export const failed = (counts: Record<string, number>): number => (counts['retry'] ?? 0) + (counts['bury'] ?? 0);

/** Every transition a topic made in the window: how busy it was. */
export const volume = (counts: Record<string, number>): number => Object.values(counts).reduce((sum, n) => sum + n, 0);

/** A line of a chart: one value per step, null where there is nothing to draw. */
export interface Line {
  key: string;
  label: string;
  values: (number | null)[];
}

/**
 * How much of a step has passed, ms: all of it, or for the step in progress the part up to the server's now
 * (`from + elapsedMs`), so its rate is over the time it has had rather than over a step not yet over.
 */
export const stepSpanMs = (answer: SeriesAnswer, at: number): number =>
  Math.min(answer.stepMs, Math.max(0, answer.from + answer.elapsedMs - at));

/** Jobs per second of one count in each step; none for a step less than a second old (too short to say). */
export const rate = (answer: SeriesAnswer, step: SeriesStep, count: number): number | null => {
  const spanMs = stepSpanMs(answer, step.at);
  return spanMs < 1000 ? null : count / (spanMs / 1000);
};

export function rateLines(answer: SeriesAnswer, series: TopicSeries): Line[] {
  const line = (key: string, label: string, count: (s: SeriesStep) => number): Line => ({
    key,
    label,
    values: series.steps.map((s) => rate(answer, s, count(s))),
  });
  return [
    line('push', 'push', (s) => s.counts['push'] ?? 0),
    line('finish', 'finish', (s) => s.counts['finish'] ?? 0),
    line('fail', 'fail (retry + bury)', (s) => failed(s.counts)),
  ];
}

export const latenessLines = (series: TopicSeries): Line[] => [
  { key: 'p50', label: 'p50', values: series.steps.map((s) => s.lateness.p50Ms) },
  { key: 'p99', label: 'p99', values: series.steps.map((s) => s.lateness.p99Ms) },
];

export const BACKLOG_STATES = ['delayed', 'ready', 'reserved', 'dead'] as const;

export const backlogLines = (series: TopicSeries): Line[] =>
  BACKLOG_STATES.map((state) => ({
    key: state,
    label: state,
    values: series.steps.map((s) => (s.backlog ? (s.backlog[state] ?? 0) : null)),
  }));
