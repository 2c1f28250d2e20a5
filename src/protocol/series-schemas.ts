/** GET /v1/stats/series: store-wide figures over time, per topic (docs/series.md). */
import { Type, type Static } from 'typebox';
import { LIMITS } from '../core/limits.js';
import { BACKLOG_STATES, SERIES_EVENTS } from '../core/series-figures.js';
import { Topic } from './schemas.js';

export const SeriesQuerySchema = Type.Object(
  {
    topic: Type.Optional(Topic),
    from: Type.Optional(
      Type.Integer({ minimum: 0, description: 'start of the range, epoch ms (inclusive); default to − windowMs' }),
    ),
    to: Type.Optional(
      Type.Integer({ minimum: 1, description: 'end of the range, epoch ms (exclusive); default just after now' }),
    ),
    windowMs: Type.Optional(
      Type.Integer({ minimum: 1, description: 'how far back from `to`, instead of `from`; default 3600000 (an hour)' }),
    ),
    stepMs: Type.Optional(
      Type.Integer({
        minimum: 10_000,
        multipleOf: 10_000,
        description: `step width, ms, a multiple of 10000; default 60000; at most ${LIMITS.seriesMaxSteps} steps per request`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type SeriesQuerySchema = Static<typeof SeriesQuerySchema>;

const Counts = Type.Object(
  Object.fromEntries(SERIES_EVENTS.map((t) => [t, Type.Integer({ minimum: 0 })])) as Record<
    (typeof SERIES_EVENTS)[number],
    ReturnType<typeof Type.Integer>
  >,
  { description: 'jobs each transition moved (retry and bury are the failures, TTR lapses included)' },
);

const Lateness = Type.Object(
  {
    count: Type.Integer({ description: 'reservations whose lateness was counted' }),
    p50Ms: Type.Union([Type.Number(), Type.Null()], {
      description: 'median of reservedAt − runAt, ms, from fixed buckets; null without reservations',
    }),
    p99Ms: Type.Union([Type.Number(), Type.Null()], { description: '99th percentile of reservedAt − runAt, ms' }),
  },
  { description: 'how late after their due time jobs were reserved' },
);

const Backlog = Type.Union(
  [
    Type.Object(
      Object.fromEntries(BACKLOG_STATES.map((s) => [s, Type.Integer({ minimum: 0 })])) as Record<
        (typeof BACKLOG_STATES)[number],
        ReturnType<typeof Type.Integer>
      >,
    ),
    Type.Null(),
  ],
  { description: 'jobs per state, as last sampled in the step; null when no sample was taken in it' },
);

export const SeriesResponse = Type.Object({
  from: Type.Integer({
    description: 'start of the first step, epoch ms: the `from` asked for, rounded down to slotMs',
  }),
  to: Type.Integer({ description: 'end of the last step, epoch ms (exclusive)' }),
  stepMs: Type.Integer(),
  slotMs: Type.Integer({ description: 'width of the slots the figures were kept in: 10000, or 300000 further back' }),
  elapsedMs: Type.Integer({ description: 'the part of [from, to) that has passed: min(to, now) − from' }),
  topics: Type.Array(
    Type.Object({
      topic: Topic,
      total: Type.Object({ counts: Counts, lateness: Lateness }, { description: 'the whole range' }),
      steps: Type.Array(
        Type.Object({
          at: Type.Integer({ description: 'step start, epoch ms; the step covers [at, at + stepMs)' }),
          counts: Counts,
          lateness: Lateness,
          backlog: Backlog,
        }),
      ),
    }),
  ),
});
export type SeriesResponse = Static<typeof SeriesResponse>;
