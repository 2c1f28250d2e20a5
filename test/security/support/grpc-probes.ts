/**
 * One probe per method of the gRPC service (proto/delayq/v1/delayq.proto), as rest-probes.ts does for the
 * OpenAPI document: orders (A) tries it on billing's (B) jobs and topics; the suite fails when the service has
 * a method without a probe here.
 */
import { status, type ClientDuplexStream, type ServiceError } from '@grpc/grpc-js';
import { expect } from 'vitest';
import { bearer, call, describeError, type GrpcClient } from '../../grpc/grpc-client.js';
import { ORDERS } from './tenant-node.js';
import type { World } from './tenant-world.js';

export type GrpcProbe = (w: World, client: GrpcClient) => Promise<void>;

interface Outcome {
  ok: boolean;
  answer?: any;
  status?: number;
  code?: string | undefined;
  field?: string | undefined;
  message?: string;
}

/** One call as orders; the answer or the error, checked to hold nothing hidden. */
async function asOrders(w: World, client: GrpcClient, method: string, request: unknown): Promise<Outcome> {
  let outcome: Outcome;
  try {
    outcome = { ok: true, answer: await call(client, method, request, bearer(ORDERS)) };
  } catch (err) {
    outcome = { ok: false, ...describeError(err as ServiceError) };
  }
  w.tellsNothing(JSON.stringify(outcome));
  return outcome;
}

async function forbidden(w: World, client: GrpcClient, method: string, request: unknown): Promise<void> {
  const outcome = await asOrders(w, client, method, request);
  expect({ method, status: outcome.status, code: outcome.code }).toEqual({
    method,
    status: status.PERMISSION_DENIED,
    code: 'E_FORBIDDEN',
  });
}

/** The call on each of B's jobs is answered as on an id no job has. */
async function asUnknown(w: World, client: GrpcClient, method: string, request: (id: string) => unknown) {
  for (const id of Object.values(w.named)) {
    const unknownId = `${id}-none`;
    const held = await asOrders(w, client, method, request(id));
    const unknown = await asOrders(w, client, method, request(unknownId));
    expect({ method, status: held.status }).toEqual({ method, status: status.NOT_FOUND });
    expect(JSON.stringify(held).replaceAll(id, unknownId)).toBe(JSON.stringify(unknown));
  }
}

/** A reserve stream as orders: subscribes, sends acks, and collects what comes back until it ends or answers. */
async function stream(
  client: GrpcClient,
  first: Record<string, unknown>,
): Promise<{ messages: any[]; error: ServiceError | undefined }> {
  const duplex: ClientDuplexStream<any, any> = client['Reserve'](bearer(ORDERS));
  const messages: any[] = [];
  return new Promise((resolve) => {
    const done = (error?: ServiceError) => {
      duplex.cancel();
      resolve({ messages, error });
    };
    duplex.on('data', (m: any) => {
      messages.push(m);
      if ((m.ackResults ?? []).length) done();
    });
    duplex.on('error', (e: ServiceError) => done(e));
    duplex.write(first);
  });
}

export const GRPC_PROBES: Record<string, GrpcProbe> = {
  Push: async (w, c) => {
    await forbidden(w, c, 'Push', { topic: w.namedTopic, id: 'never-g1' });
    const taken = await asOrders(w, c, 'Push', { topic: w.ownTopic, id: w.named.delayed });
    expect(taken).toMatchObject({ status: status.FAILED_PRECONDITION, code: 'E_CONFLICT', field: 'id' });
  },
  PushBatch: async (w, c) => {
    await forbidden(w, c, 'PushBatch', { jobs: [{ topic: w.ownTopic }, { topic: w.namedTopic }] });
    const taken = await asOrders(w, c, 'PushBatch', {
      jobs: [{ topic: w.ownTopic }, { topic: w.ownTopic, id: w.named.ready }],
    });
    expect(taken).toMatchObject({ code: 'E_CONFLICT', field: 'jobs[1].id' });
  },
  Get: (w, c) => asUnknown(w, c, 'Get', (id) => ({ id, history: true })),
  Cancel: (w, c) => asUnknown(w, c, 'Cancel', (id) => ({ id })),
  Reschedule: (w, c) => asUnknown(w, c, 'Reschedule', (id) => ({ id, delayMs: 1000 })),
  RunNow: (w, c) => asUnknown(w, c, 'RunNow', (id) => ({ id })),
  Touch: (w, c) => asUnknown(w, c, 'Touch', (id) => ({ id, token: w.reservationToken })),
  Finish: (w, c) => asUnknown(w, c, 'Finish', (id) => ({ id, token: w.reservationToken })),
  Fail: (w, c) => asUnknown(w, c, 'Fail', (id) => ({ id, token: w.reservationToken, bury: true })),
  Release: (w, c) => asUnknown(w, c, 'Release', (id) => ({ id, token: w.reservationToken })),
  Ack: async (w, c) => {
    const ack = (id: string) => ({ acks: [{ id, token: w.reservationToken, op: 'finish' }] });
    const held = await asOrders(w, c, 'Ack', ack(w.named.reserved));
    const unknown = await asOrders(w, c, 'Ack', ack(`${w.named.reserved}-none`));
    expect(held.answer.results[0].error.code).toBe('E_NOT_FOUND');
    expect(JSON.stringify(held).replaceAll(w.named.reserved, `${w.named.reserved}-none`)).toBe(JSON.stringify(unknown));
  },
  Reserve: async (w, c) => {
    const other = await stream(c, { subscribe: { topics: [w.namedTopic] }, credit: 1 });
    expect(other.error && describeError(other.error)).toMatchObject({ status: status.PERMISSION_DENIED });
    const own = await stream(c, {
      subscribe: { topics: [w.ownTopic] },
      acks: [{ id: w.named.reserved, token: w.reservationToken, op: 'finish' }],
    });
    w.tellsNothing(JSON.stringify(own.messages));
    expect(own.messages.flatMap((m) => m.ackResults)[0].error.code).toBe('E_NOT_FOUND');
  },
  Stats: async (w, c) => {
    const stats = await asOrders(w, c, 'Stats', {});
    expect(JSON.stringify(stats)).not.toContain('billing');
    expect(stats.answer.topics.map((t: { topic: string }) => t.topic)).toContain(w.ownTopic);
  },
  List: async (w, c) => {
    for (const request of [{}, { bizKey: 'shared-key' }, { tag: 'shared-tag' }]) {
      const listed = await asOrders(w, c, 'List', request);
      expect(JSON.stringify(listed)).not.toContain('billing');
      expect(listed.answer.jobs.map((j: { id: string }) => j.id)).toEqual(expect.arrayContaining(w.ownIds));
    }
    await forbidden(w, c, 'List', { topic: w.namedTopic });
  },
  ListDead: (w, c) => forbidden(w, c, 'ListDead', { topic: w.namedTopic }),
  Redrive: async (w, c) => {
    await forbidden(w, c, 'Redrive', { topic: w.namedTopic, ids: [] });
    const byIds = await asOrders(w, c, 'Redrive', { ids: [w.named.dead] });
    expect(byIds.answer.count ?? 0).toBe(0);
  },
  PauseTopic: (w, c) => forbidden(w, c, 'PauseTopic', { topic: w.namedTopic }),
  ResumeTopic: (w, c) => forbidden(w, c, 'ResumeTopic', { topic: w.namedTopic }),
  PauseGroup: (w, c) => forbidden(w, c, 'PauseGroup', { topic: w.namedTopic, group: 'g-1' }),
  ResumeGroup: (w, c) => forbidden(w, c, 'ResumeGroup', { topic: w.namedTopic, group: 'g-1' }),
  ListPausedGroups: (w, c) => forbidden(w, c, 'ListPausedGroups', { topic: w.namedTopic }),
  GetTopicSettings: (w, c) => forbidden(w, c, 'GetTopicSettings', { topic: w.namedTopic }),
  PutTopicSettings: (w, c) => forbidden(w, c, 'PutTopicSettings', { topic: w.namedTopic }),
  GetTopicStats: (w, c) => forbidden(w, c, 'GetTopicStats', { topic: w.namedTopic }),
  Purge: (w, c) => forbidden(w, c, 'Purge', { before: Date.now() }),
  Restore: (w, c) => forbidden(w, c, 'Restore', {}),
  RestoreJob: (w, c) => forbidden(w, c, 'RestoreJob', { id: w.named.delayed }),
  ClearAll: (w, c) => forbidden(w, c, 'ClearAll', { confirm: 'clear-all' }),
};
