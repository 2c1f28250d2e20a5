/** Drift checks: the wire types (protocol/schemas.ts) and the core/service types must keep agreeing. */
import { Value } from 'typebox/value';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { PushInput } from '../../src/core/job-input.js';
import type { HistoryEntry, Job, Reservation, TopicStatsWithPause } from '../../src/core/job.js';
import {
  JobSchema,
  PushRequest,
  type PushRequest as WirePushRequest,
  type WireHistoryEntry,
  type WireJob,
  type WireTopicStats,
} from '../../src/protocol/schemas.js';
import {
  type FailRequest as WireFailRequest,
  type ReserveRequest as WireReserveRequest,
  type WireReservation,
} from '../../src/protocol/reservation-schemas.js';
import type { FailRequest, ReserveRequest } from '../../src/service/service.js';
import { toWireJob } from '../../src/server/wire.js';

describe('protocol schemas', () => {
  it('type requests as the service accepts them', () => {
    expectTypeOf<WirePushRequest>().toExtend<PushInput>();
    expectTypeOf<WireReserveRequest>().toExtend<ReserveRequest>();
    expectTypeOf<Omit<WireFailRequest, 'token'>>().toExtend<FailRequest>();
  });

  it('type responses as the service produces them (body as a value instead of text)', () => {
    expectTypeOf<Omit<Job, 'body'>>().toEqualTypeOf<Omit<WireJob, 'body'>>();
    expectTypeOf<HistoryEntry>().toEqualTypeOf<WireHistoryEntry>();
    expectTypeOf<TopicStatsWithPause>().toEqualTypeOf<WireTopicStats>();
    expectTypeOf<Omit<Reservation, 'job'>>().toEqualTypeOf<Omit<WireReservation, 'job'>>();
  });

  it('describe a real job exactly', () => {
    const job: Job = {
      id: '01J',
      topic: 't',
      tag: null,
      bizKey: 'b',
      body: '{"a":1}',
      state: 'reserved',
      runAt: 1,
      priority: 0,
      ttrMs: 100,
      ttlMs: null,
      retry: { maxAttempts: 3, backoff: { type: 'list', delaysMs: [1, 2] } },
      attempts: 1,
      lastError: null,
      createdAt: 1,
      readyAt: 1,
      reservedAt: 2,
      finishedAt: null,
      deadlineAt: 102,
    };
    expect(Value.Check(JobSchema, toWireJob(job))).toBe(true);
    expect(Value.Check(PushRequest, { topic: 'a', retry: '4m,10m', delayMs: '30s', body: [1] })).toBe(true);
    expect(Value.Check(PushRequest, { topic: 'a', unknown: 1 })).toBe(false);
  });
});
