/** GET /v1/stats/due: the due-time histogram of delayed jobs (docs/protocol.md). */
import { Type, type Static } from 'typebox';
import { LIMITS } from '../core/limits.js';
import { Topic } from './schemas.js';

export const DueHistogramQuerySchema = Type.Object(
  {
    topic: Type.Optional(Topic),
    from: Type.Optional(
      Type.Integer({ minimum: 0, description: 'start of the range, epoch ms (inclusive); default now' }),
    ),
    to: Type.Optional(
      Type.Integer({ minimum: 1, description: 'end of the range, epoch ms (exclusive); default from + 1 h' }),
    ),
    bucketMs: Type.Optional(
      Type.Integer({
        minimum: LIMITS.dueHistogramMinBucketMs,
        description: `bucket width, ms; default 60000; at most ${LIMITS.dueHistogramMaxBuckets} buckets per request`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type DueHistogramQuerySchema = Static<typeof DueHistogramQuerySchema>;

export const DueHistogramResponse = Type.Object({
  topic: Type.Union([Topic, Type.Null()], { description: 'the topic asked for, or null for all topics' }),
  from: Type.Integer({ description: 'epoch ms, inclusive' }),
  to: Type.Integer({ description: 'epoch ms, exclusive' }),
  bucketMs: Type.Integer(),
  total: Type.Integer({ description: 'delayed jobs due in [from, to)' }),
  buckets: Type.Array(
    Type.Object({
      at: Type.Integer({ description: 'bucket start, epoch ms; the bucket covers [at, min(at + bucketMs, to))' }),
      count: Type.Integer({ description: 'delayed jobs due in the bucket' }),
    }),
  ),
});
export type DueHistogramResponse = Static<typeof DueHistogramResponse>;
