/** The wire contract of `/v1/schedules` (docs/schedules.md), beside the job schemas it reuses. */
import { Type, type Static } from 'typebox';
import { LIMITS } from '../core/limits.js';
import {
  Duration,
  EpochMs,
  JobSchema,
  Label,
  Nullable,
  RetryInput,
  RunAt,
  SpreadMs,
  TimeZone,
  Topic,
} from './schemas.js';

const strict = { additionalProperties: false } as const;

export const ScheduleName = Type.String({
  pattern: LIMITS.scheduleNamePattern,
  description: `1–${LIMITS.scheduleNameMaxLength} letters, digits, ".", "_", "-"; starts with a letter or digit`,
  examples: ['nightly-report'],
});
export const ScheduleNameParams = Type.Object({ name: ScheduleName }, strict);

export const JobTemplate = Type.Object(
  {
    body: Type.Optional(Type.Unknown({ description: 'any JSON value' })),
    tag: Type.Optional(Label),
    bizKey: Type.Optional(Label),
    priority: Type.Optional(Type.Integer({ minimum: LIMITS.priorityMin, maximum: LIMITS.priorityMax })),
    ttrMs: Type.Optional(Duration),
    ttlMs: Type.Optional(Nullable(Duration)),
    retry: Type.Optional(RetryInput),
    spreadMs: Type.Optional(SpreadMs),
  },
  { ...strict, description: 'the job every fire pushes (as a push, without topic, id or due time)' },
);

const MissedTickPolicy = Type.Enum(['skip', 'once', 'each'], {
  description: 'ticks missed while no instance ran: none, the latest one, or each (the latest catchUpMax)',
});

export const PutScheduleRequest = Type.Object(
  {
    topic: Topic,
    job: Type.Optional(JobTemplate),
    cron: Type.Optional(
      Type.String({
        maxLength: 256,
        description: 'croner pattern, seconds first when 6 fields ("*/5 * * * * *"); exclusive with everyMs',
      }),
    ),
    everyMs: Type.Optional(Duration),
    timeZone: Type.Optional(TimeZone),
    startAt: Type.Optional(Nullable(RunAt)),
    endAt: Type.Optional(Nullable(RunAt)),
    maxFires: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
    missed: Type.Optional(MissedTickPolicy),
    catchUpMax: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.scheduleCatchUpMax })),
  },
  strict,
);
export type PutScheduleRequest = Static<typeof PutScheduleRequest>;

export const Schedule = Type.Object({
  name: Type.String(),
  topic: Type.String(),
  job: Type.Object({}, { additionalProperties: true, description: 'the job template as given' }),
  cron: Nullable(Type.String()),
  everyMs: Nullable(Type.Integer()),
  timeZone: Type.String(),
  startAt: Nullable(EpochMs),
  endAt: Nullable(EpochMs),
  maxFires: Nullable(Type.Integer()),
  missed: MissedTickPolicy,
  catchUpMax: Type.Integer(),
  paused: Type.Boolean(),
  revision: Type.Integer({ description: 'bumped by every change, pause and resume' }),
  cursorAt: EpochMs,
  fired: Type.Integer({ description: 'ticks fired so far' }),
  lastFiredAt: Nullable(EpochMs),
  lastJobId: Nullable(Type.String({ description: 'the job of the latest fire: `<name>~<lastFiredAt>`' })),
  nextFireAt: Nullable(EpochMs),
  anchorAt: EpochMs,
  createdAt: EpochMs,
  updatedAt: EpochMs,
});
export type Schedule = Static<typeof Schedule>;

export const ScheduleResponse = Type.Object({ schedule: Schedule });
export const ScheduleListResponse = Type.Object({ schedules: Type.Array(Schedule) });

const firesCount = (description: string) =>
  Type.Integer({ minimum: 0, maximum: LIMITS.scheduleFiresMax, default: 5, description });
export const ScheduleFiresQuery = Type.Object(
  {
    next: Type.Optional(firesCount('how many coming ticks')),
    last: Type.Optional(firesCount('how many latest fires with their jobs')),
  },
  strict,
);
export type ScheduleFiresQuery = Static<typeof ScheduleFiresQuery>;

export const ScheduleFiresResponse = Type.Object({
  next: Type.Array(EpochMs, { description: 'the coming ticks, earliest first (none when paused or ended)' }),
  last: Type.Array(
    Type.Object({
      tickAt: EpochMs,
      jobId: Type.String({
        description: "`<name>~<tickAt>` (`~` is kept out of callers' ids, so only the schedule pushes it)",
      }),
      job: JobSchema,
    }),
    { description: 'the latest fired ticks whose job still exists, newest first' },
  ),
});
export type ScheduleFiresResponse = Static<typeof ScheduleFiresResponse>;

export const SchedulePreviewQuery = Type.Object(
  { next: Type.Optional(firesCount('how many coming ticks (default 10)')) },
  strict,
);
export const SchedulePreviewResponse = Type.Object({
  next: Type.Array(EpochMs, {
    description: 'the coming ticks the definition would fire, earliest first, as if active (nothing is stored)',
  }),
  timeZone: Type.String({ description: 'the zone the ticks are read in' }),
});
