/**
 * The hand-written answers of the hot routes (job-json.ts) must say exactly what the schema serializer said:
 * the same value as toWireJob, valid against the response schemas, for every optional and nullable field,
 * every backoff shape and strings that need escaping.
 */
import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import type { Job, Reservation } from '../../src/core/job.js';
import { ReserveAndAckResponse } from '../../src/protocol/ack-schemas.js';
import { JobSchema, PushBatchResponse, PushResponse } from '../../src/protocol/schemas.js';
import { jobJson, pushAnswerJson, pushBatchAnswerJson, reserveAnswerJson } from '../../src/server/job-json.js';
import { toWireJob } from '../../src/server/wire.js';

const base: Job = {
  id: '01JDQ8ZK8X3V7N0W5T2H4C6B9M',
  topic: 'orders',
  tag: null,
  bizKey: null,
  body: '{"a":1,"b":[true,null,"x"]}',
  state: 'delayed',
  runAt: 1_764_045_600_000,
  priority: 0,
  ttrMs: 30_000,
  ttlMs: null,
  retry: { maxAttempts: 3, backoff: { type: 'exponential', delayMs: 1000, factor: 1.5, maxDelayMs: 60_000 } },
  attempts: 0,
  lastError: null,
  createdAt: 1_764_043_800_000,
  readyAt: null,
  reservedAt: null,
  finishedAt: null,
  deadlineAt: null,
};

const jobs: Job[] = [
  base,
  {
    ...base,
    tag: 'we "quote"\n',
    bizKey: 'ключ \u2028 \\ end',
    body: '"just a string"',
    state: 'reserved',
    priority: -5,
    ttlMs: 86_400_000,
    retry: { maxAttempts: 1, backoff: { type: 'fixed', delayMs: 500 } },
    attempts: 2,
    lastError: 'Error: boom\tat line 3',
    readyAt: 1_764_045_600_001,
    reservedAt: 1_764_045_600_002,
    deadlineAt: 1_764_045_630_002,
  },
  {
    ...base,
    topic: 'a/b.c-d_e',
    body: 'null',
    state: 'finished',
    retry: { maxAttempts: 5, backoff: { type: 'list', delaysMs: [240_000, 600_000, 3_600_000] } },
    finishedAt: 1_764_045_700_000,
  },
  { ...base, body: '[1,2.5,-3e-7,{"nested":{"deep":[]}}]', state: 'dead', lastError: '' },
  { ...base, state: 'ready', readyAt: 1_764_045_600_001, group: 'merchant:42@eu' },
];

describe('job-json: hand-written answers', () => {
  it.each(jobs.map((job) => [job.state, job] as const))('a %s job reads back as toWireJob shows it', (_s, job) => {
    const parsed: unknown = JSON.parse(jobJson(job));
    expect(parsed).toEqual(toWireJob(job));
    // `group` only when the job has one.
    const keys = Object.keys(JobSchema.properties).filter((k) => k !== 'group' || job.group !== undefined);
    expect(Object.keys(parsed as object)).toEqual(keys);
    expect(Value.Check(JobSchema, parsed)).toBe(true);
  });

  it('push and batch push answers match their response schemas', () => {
    const one: unknown = JSON.parse(pushAnswerJson({ created: false, job: jobs[1]! }));
    expect(one).toEqual({ created: false, outcome: 'kept', job: toWireJob(jobs[1]!) });
    const extended: unknown = JSON.parse(pushAnswerJson({ created: false, change: 'extended', job: jobs[1]! }));
    expect(extended).toMatchObject({ created: false, outcome: 'extended' });
    expect(Value.Check(PushResponse, extended)).toBe(true);
    expect(Value.Check(PushResponse, one)).toBe(true);
    const batch: unknown = JSON.parse(pushBatchAnswerJson(jobs.map((job, i) => ({ created: i % 2 === 0, job }))));
    expect(Value.Check(PushBatchResponse, batch)).toBe(true);
    expect((batch as { results: unknown[] }).results).toHaveLength(jobs.length);
  });

  it('a reserve answer carries its reservations and, when given, the ack results', () => {
    const reservations: Reservation[] = [{ job: jobs[1]!, token: 'tok"1', deadlineAt: 1_764_045_630_002 }];
    const plain: unknown = JSON.parse(reserveAnswerJson(reservations, undefined));
    expect(plain).toEqual({
      reservations: [{ job: toWireJob(jobs[1]!), token: 'tok"1', deadlineAt: 1_764_045_630_002 }],
    });
    expect(Value.Check(ReserveAndAckResponse, plain)).toBe(true);
    const acks = [
      { id: 'a', op: 'finish', ok: true as const, state: 'finished' as const },
      {
        id: 'b',
        op: 'finish',
        ok: false as const,
        error: { code: 'E_TOKEN_MISMATCH', message: 'm', field: 'acks[1].token' },
      },
    ];
    const withAcks: unknown = JSON.parse(reserveAnswerJson([], acks));
    expect(withAcks).toEqual({ reservations: [], acks });
    expect(Value.Check(ReserveAndAckResponse, withAcks)).toBe(true);
    expect(JSON.parse(reserveAnswerJson([], []))).toEqual({ reservations: [], acks: [] });
  });
});
