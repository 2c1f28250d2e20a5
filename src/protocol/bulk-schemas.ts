/** Bulk operations by selector on the wire (POST /v1/jobs/bulk, docs/job-api.md). */
import { Type, type Static } from 'typebox';
import { LIMITS } from '../core/limits.js';
import { JobStateSchema, Nullable, Topic } from './schemas.js';

const strict = { additionalProperties: false } as const;
const Label = Type.String({ minLength: 1, maxLength: LIMITS.labelMaxLength });

export const Selector = Type.Object(
  {
    topic: Type.Optional(Topic),
    bizKey: Type.Optional(Label),
    tag: Type.Optional(Label),
    state: Type.Optional(JobStateSchema),
    dueFrom: Type.Optional(Type.Integer({ minimum: 0, description: 'due time (runAt) from, inclusive' })),
    dueTo: Type.Optional(Type.Integer({ minimum: 0, description: 'due time (runAt) to, exclusive' })),
  },
  { ...strict, description: 'which jobs: a topic, a bizKey or a tag at least; every field given must match' },
);

export const BulkRequest = Type.Object(
  {
    action: Type.Union([
      Type.Literal('cancel'),
      Type.Literal('reschedule'),
      Type.Literal('redrive'),
      Type.Literal('delete'),
    ]),
    selector: Selector,
    runAt: Type.Optional(Type.Integer({ description: 'reschedule: the new due time' })),
    shiftMs: Type.Optional(
      Type.Union([Type.Integer(), Type.String({ minLength: 1, maxLength: 32 })], {
        description: 'reschedule: move each due time by this much (ms, negative = earlier; or "10m")',
      }),
    ),
    reason: Type.Optional(Type.String({ maxLength: LIMITS.errorMaxLength, description: 'cancel: kept in history' })),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: LIMITS.bulkMaxPerCall, description: 'jobs looked at in this call' }),
    ),
    cursor: Type.Optional(Type.String({ maxLength: 512, description: "the previous answer's next" })),
    dryRun: Type.Optional(Type.Boolean({ description: 'count what would change; change nothing' })),
  },
  strict,
);
export type BulkRequest = Static<typeof BulkRequest>;

export const BulkResponse = Type.Object({
  matched: Type.Integer({ description: 'jobs of this slice the selector and the action apply to' }),
  applied: Type.Integer({ description: 'jobs changed (0 on a dry run)' }),
  next: Nullable(Type.String({ description: 'call again with this cursor; null: done' })),
  dryRun: Type.Boolean(),
});
export type BulkResponse = Static<typeof BulkResponse>;
