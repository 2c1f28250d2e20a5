/** The wire contract of the topic list (GET /v1/topics): filtered, sorted and paged by cursor. */
import { Type, type Static } from 'typebox';
import { JOB_STATES } from '../core/job.js';
import { LIMITS } from '../core/limits.js';
import { JobStateSchema, Nullable, TopicStatsSchema } from './schemas.js';

/** What the list may be sorted by: the name, the next due time, all jobs, or the jobs in one state. */
export const TopicSortSchema = Type.Enum(['topic', 'nextDueAt', 'total', ...JOB_STATES], {
  description: 'the name, the next due time, every job, or the jobs in one state; default topic',
});

export const TopicListQuery = Type.Object(
  {
    prefix: Type.Optional(
      Type.String({
        maxLength: LIMITS.topicMaxLength,
        pattern: '^[A-Za-z0-9._:-]*$',
        description: 'topics whose name starts with this',
      }),
    ),
    contains: Type.Optional(
      Type.String({ maxLength: LIMITS.topicMaxLength, description: 'topics whose name contains this (any case)' }),
    ),
    has: Type.Optional({ ...JobStateSchema, description: 'topics with at least one job in this state' }),
    paused: Type.Optional(Type.Boolean({ description: 'only paused (true) or only running (false) topics' })),
    sort: Type.Optional(TopicSortSchema),
    order: Type.Optional(
      Type.Enum(['asc', 'desc'], { description: 'default: asc for topic and nextDueAt, desc for counts' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.listingMaxPage, default: 50 })),
    cursor: Type.Optional(
      Type.String({ maxLength: 1024, description: "the previous answer's next (with the same sort and order)" }),
    ),
  },
  { additionalProperties: false },
);
export type TopicListQuery = Static<typeof TopicListQuery>;

export const TopicListResponse = Type.Object({
  topics: Type.Array(TopicStatsSchema),
  next: Nullable(Type.String({ description: 'ask again with cursor=next for the following page; null: last page' })),
  total: Type.Integer({ description: 'topics passing the filters, across every page' }),
});
export type TopicListResponse = Static<typeof TopicListResponse>;
