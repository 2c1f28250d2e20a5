import { credentials, loadPackageDefinition, status, type ClientDuplexStream } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spreadOffsetMs } from '../../src/core/spread.js';
import { startGrpcServer, type GrpcTestServer } from '../helpers/grpc-server.js';
import { bearer, call, callError, describeError, grpcClient, until, type GrpcClient } from './grpc-client.js';

const require = createRequire(import.meta.url);

/** One reserve stream and the messages it received, each awaited by a predicate. */
function openStream(client: GrpcClient, metadata = bearer('unused-token-xxxxxxxx')) {
  const stream: ClientDuplexStream<any, any> = client['Reserve'](metadata);
  const received: any[] = [];
  let ended: { error?: any } | undefined;
  const waiters: (() => void)[] = [];
  const poke = () => waiters.splice(0).forEach((w) => w());
  stream.on('data', (m: any) => {
    received.push(m);
    poke();
  });
  stream.on('error', (error: any) => {
    ended = { error };
    poke();
  });
  stream.on('end', () => {
    ended ??= {};
    poke();
  });
  const next = async <T>(pick: () => T | undefined, timeoutMs = 5000): Promise<T> => {
    const giveUp = Date.now() + timeoutMs;
    for (;;) {
      const value = pick();
      if (value !== undefined) return value;
      if (Date.now() > giveUp) throw new Error('stream message not received in time');
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  };
  return {
    stream,
    received,
    reservations: () => received.flatMap((m) => m.reservations ?? []),
    ackResults: () => received.flatMap((m) => m.ackResults ?? []),
    ended: () => ended,
    next,
  };
}

describe('gRPC service (embedded store)', () => {
  let server: GrpcTestServer;
  let client: GrpcClient;
  beforeAll(async () => {
    server = await startGrpcServer();
    client = grpcClient(server.grpcTarget);
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
  });

  it('pushes, gets with history, reschedules and cancels', async () => {
    const pushed = await call(client, 'Push', {
      topic: 'g-orders',
      id: 'g-1',
      bodyJson: '{"orderNo":"A1"}',
      delayMs: 60_000,
      retry: { maxAttempts: 2, backoff: '1s,2s' },
    });
    expect(pushed.created).toBe(true);
    expect(pushed.job).toMatchObject({ id: 'g-1', state: 'delayed', bodyJson: '{"orderNo":"A1"}' });
    expect(JSON.parse(pushed.job.retry.backoffJson)).toEqual({ type: 'list', delaysMs: [1000, 2000] });
    expect((await call(client, 'Push', { topic: 'g-orders', id: 'g-1' })).created).toBe(false);
    const got = await call(client, 'Get', { id: 'g-1', history: true });
    expect(got.history.map((h: any) => h.event)).toContain('push');
    const moved = await call(client, 'Reschedule', { id: 'g-1', delayMs: 0 });
    expect(moved.job.state).toBe('ready');
    const cancelled = await call(client, 'Cancel', { id: 'g-1', reason: 'paid' });
    expect(cancelled).toMatchObject({ job: { state: 'cancelled' }, dispatched: false, attempts: 0 });
  });

  it('RunNow makes a delayed job ready, refusing any other state with FAILED_PRECONDITION', async () => {
    await call(client, 'Push', { topic: 'g-run', id: 'g-run-1', delayMs: 3_600_000 });
    expect((await call(client, 'RunNow', { id: 'g-run-1' })).job.state).toBe('ready');
    const got = await call(client, 'Get', { id: 'g-run-1', history: true });
    expect(got.history.at(-1)).toMatchObject({ event: 'promote', reason: 'run now' });
    expect(await callError(client, 'RunNow', { id: 'g-run-1' })).toMatchObject({
      status: status.FAILED_PRECONDITION,
      code: 'E_WRONG_STATE',
    });
    expect(await callError(client, 'RunNow', { id: 'g-run-none' })).toMatchObject({ status: status.NOT_FOUND });
  });

  it('Push and PushBatch take spreadMs: due at the due time plus the offset of the id', async () => {
    const runAt = Date.now() + 3_600_000;
    const pushed = await call(client, 'Push', { topic: 'g-spread', id: 'g-spread-1', runAt, spreadMs: 10_000 });
    expect(pushed.job.runAt).toBe(runAt + spreadOffsetMs('g-spread-1', 10_000));
    const batch = await call(client, 'PushBatch', {
      jobs: [{ topic: 'g-spread', id: 'g-spread-2', runAt, spreadMs: 10_000 }],
    });
    expect(batch.results[0].job.runAt).toBe(runAt + spreadOffsetMs('g-spread-2', 10_000));
    expect(await callError(client, 'Push', { topic: 'g-spread', spreadMs: -5 })).toMatchObject({
      status: status.INVALID_ARGUMENT,
      field: 'spreadMs',
    });
  });

  it('upserts: onExists replace and extend answer their outcome; a bad one names the field', async () => {
    const first = await call(client, 'Push', { topic: 'g-up', id: 'g-up-1', delayMs: 60_000 });
    expect(first.outcome).toBe('created');
    expect((await call(client, 'Push', { topic: 'g-up', id: 'g-up-1' })).outcome).toBe('kept');
    const replaced = await call(client, 'Push', {
      topic: 'g-up',
      id: 'g-up-1',
      bodyJson: '"new"',
      delayMs: 5000,
      onExists: 'replace',
    });
    expect(replaced).toMatchObject({ created: false, outcome: 'replaced', job: { bodyJson: '"new"' } });
    const extended = await call(client, 'PushBatch', {
      jobs: [{ topic: 'g-up', id: 'g-up-1', delayMs: 9000, onExists: 'extend', maxWaitMs: 9000 }],
    });
    expect(extended.results[0]).toMatchObject({ outcome: 'extended', job: { bodyJson: '"new"' } });
    expect(await callError(client, 'Push', { topic: 'g-up', onExists: 'merge' })).toMatchObject({
      status: status.INVALID_ARGUMENT,
      field: 'onExists',
    });
  });

  it('deduplicates: a push with the dedup key inside the window answers the first job', async () => {
    const first = await call(client, 'Push', { topic: 'g-dedup', dedupKey: 'k-1', dedupWindowMs: 60_000 });
    expect(first.outcome).toBe('created');
    const again = await call(client, 'PushBatch', {
      jobs: [{ topic: 'g-dedup', id: 'g-dedup-2', dedupKey: 'k-1', dedupWindowMs: 60_000 }],
    });
    expect(again.results[0]).toMatchObject({ created: false, outcome: 'duplicate', job: { id: first.job.id } });
    expect(await callError(client, 'Push', { topic: 'g-dedup', dedupKey: 'k-1', dedupWindowMs: 0 })).toMatchObject({
      status: status.INVALID_ARGUMENT,
      field: 'dedupWindowMs',
    });
  });

  it('refuses bad messages with INVALID_ARGUMENT naming the field, as HTTP does', async () => {
    const batch = await callError(client, 'PushBatch', { jobs: [{ topic: 'ok' }, { topic: 'ok', priority: 99_999 }] });
    expect(batch).toMatchObject({ status: status.INVALID_ARGUMENT, code: 'E_VALIDATION', field: 'jobs[1].priority' });
    expect(await callError(client, 'Push', { topic: 'bad topic' })).toMatchObject({
      status: status.INVALID_ARGUMENT,
      field: 'topic',
    });
    expect(await callError(client, 'Push', { topic: 't', bodyJson: '{nope' })).toMatchObject({
      status: status.INVALID_ARGUMENT,
      field: 'bodyJson',
    });
    expect(await callError(client, 'Push', { topic: 't', retry: { backoff: 'soon' } })).toMatchObject({
      status: status.INVALID_ARGUMENT,
      code: 'E_VALIDATION',
    });
    expect(await callError(client, 'Finish', { id: 'x', token: '' })).toMatchObject({
      status: status.INVALID_ARGUMENT,
      field: 'token',
    });
    expect(await callError(client, 'Get', { id: 'no/such' })).toMatchObject({
      status: status.INVALID_ARGUMENT,
      field: 'id',
    });
    expect(await callError(client, 'Get', { id: 'missing' })).toMatchObject({
      status: status.NOT_FOUND,
      code: 'E_NOT_FOUND',
    });
    expect(await callError(client, 'Restore', {})).toMatchObject({
      status: status.FAILED_PRECONDITION,
      code: 'E_CONFLICT',
    });
  });

  it('Finish takes a result and Fail a structured error (JSON text), in Ack too; bad JSON names the field', async () => {
    await call(client, 'PushBatch', {
      jobs: ['o-1', 'o-2', 'o-3', 'o-4'].map((id) => ({ topic: 'g-outcome', id, retry: { maxAttempts: 1 } })),
    });
    const held = await server.service.reserve({ topics: ['g-outcome'], count: 4 });
    const token = (id: string) => held.find((r) => r.job.id === id)!.token;
    expect(await callError(client, 'Finish', { id: 'o-1', token: token('o-1'), resultJson: '{nope' })).toMatchObject({
      status: status.INVALID_ARGUMENT,
      field: 'resultJson',
    });
    await call(client, 'Finish', { id: 'o-1', token: token('o-1'), resultJson: '{"paid":12.5}' });
    expect((await server.service.outcomes.outcomeOf('o-1'))?.result).toBe('{"paid":12.5}');
    const failed = await call(client, 'Fail', {
      id: 'o-2',
      token: token('o-2'),
      error: 'card declined',
      errorCode: 'DECLINED',
      errorDetailsJson: '{"psp":"x"}',
    });
    expect(failed).toMatchObject({ action: 'bury', job: { state: 'dead', lastError: 'card declined' } });
    expect((await server.service.outcomes.outcomeOf('o-2'))?.error).toEqual({
      message: 'card declined',
      code: 'DECLINED',
      details: '{"psp":"x"}',
    });
    const acked = await call(client, 'Ack', {
      acks: [
        { id: 'o-3', token: token('o-3'), op: 'finish', resultJson: '[1,2]' },
        { id: 'o-4', token: token('o-4'), op: 'fail', error: 'no stock', errorCode: 'STOCK' },
      ],
    });
    expect(acked.results.map((r: any) => r.ok)).toEqual([true, true]);
    expect((await server.service.outcomes.outcomeOf('o-3'))?.result).toBe('[1,2]');
    expect((await server.service.outcomes.outcomeOf('o-4'))?.error).toMatchObject({
      message: 'no stock',
      code: 'STOCK',
    });
  });

  it('streams reservations against credit and settles acks on the same stream', async () => {
    await call(client, 'PushBatch', {
      jobs: [1, 2, 3].map((n) => ({ topic: 'g-stream', id: `s-${n}`, bodyJson: String(n) })),
    });
    const s = openStream(client);
    s.stream.write({ subscribe: { topics: ['g-stream'] }, credit: 2 });
    const first = await s.next(() => (s.reservations().length >= 2 ? s.reservations() : undefined));
    expect(first).toHaveLength(2);
    // No credit left: the third job stays ready until more is granted.
    expect((await call(client, 'Get', { id: 's-3' })).job.state).toBe('ready');
    const [a, b] = first;
    s.stream.write({
      acks: [
        { id: a.job.id, token: a.token, op: 'finish' },
        { id: b.job.id, token: 'stale-token', op: 'finish' },
        { id: b.job.id, token: b.token, op: 'fail', error: 'boom', bury: true },
      ],
      credit: 1,
    });
    const results = await s.next(() => (s.ackResults().length >= 3 ? s.ackResults() : undefined));
    expect(results.map((r: any) => [r.ok, r.state ?? r.error.code])).toEqual([
      [true, 'finished'],
      [false, 'E_TOKEN_MISMATCH'],
      [true, 'dead'],
    ]);
    const third = await s.next(() => s.reservations()[2]);
    expect(third.job.id).toBe('s-3');
    s.stream.write({ acks: [{ id: 's-3', token: third.token, op: 'finish' }] });
    await s.next(() => s.ackResults()[3]);
    s.stream.end();
    await s.next(() => s.ended());
    expect(s.ended()?.error).toBeUndefined();
  });

  it('releases the reservations of a client that vanishes mid-stream at once', async () => {
    await call(client, 'Push', { topic: 'g-vanish', id: 'v-1', ttrMs: 600_000 });
    const s = openStream(client);
    s.stream.write({ subscribe: { topics: ['g-vanish'] }, credit: 5 });
    await s.next(() => s.reservations()[0]);
    expect((await call(client, 'Get', { id: 'v-1' })).job.state).toBe('reserved');
    s.stream.cancel(); // the client goes away without a word
    await until(async () => (await call(client, 'Get', { id: 'v-1' })).job.state === 'ready', 2000);
    const job = (await call(client, 'Get', { id: 'v-1' })).job;
    expect(job.attempts).toBe(0); // given back, not counted as a delivery
  });

  it('ends a stream whose messages are bad with INVALID_ARGUMENT naming the field', async () => {
    const noSubscribe = openStream(client);
    noSubscribe.stream.write({ credit: 1 });
    const e1 = await noSubscribe.next(() => noSubscribe.ended()?.error);
    expect(describeError(e1)).toMatchObject({ status: status.INVALID_ARGUMENT, field: 'subscribe' });

    const badTopic = openStream(client);
    badTopic.stream.write({ subscribe: { topics: ['ok', 'not ok'] }, credit: 1 });
    expect(describeError(await badTopic.next(() => badTopic.ended()?.error))).toMatchObject({ field: 'topics[1]' });

    const badAck = openStream(client);
    badAck.stream.write({ subscribe: { topics: ['g-bad'] } });
    badAck.stream.write({
      acks: [
        { id: 'x', token: 't', op: 'finish' },
        { id: 'y', token: 't', op: 'explode' },
      ],
    });
    expect(describeError(await badAck.next(() => badAck.ended()?.error))).toMatchObject({
      status: status.INVALID_ARGUMENT,
      field: 'acks[1].op',
    });

    const tooMuch = openStream(client);
    tooMuch.stream.write({ subscribe: { topics: ['g-bad'] }, credit: 5000 });
    expect(describeError(await tooMuch.next(() => tooMuch.ended()?.error))).toMatchObject({ field: 'credit' });
  });

  it('settles a batch of acks with the unary Ack call', async () => {
    await call(client, 'PushBatch', {
      jobs: [
        { topic: 'g-ack', id: 'k-1' },
        { topic: 'g-ack', id: 'k-2' },
      ],
    });
    const s = openStream(client);
    s.stream.write({ subscribe: { topics: ['g-ack'] }, credit: 2 });
    const [r1, r2] = await s.next(() => (s.reservations().length === 2 ? s.reservations() : undefined));
    const answer = await call(client, 'Ack', {
      acks: [
        { id: r1.job.id, token: r1.token, op: 'touch', ttrMs: 60_000 },
        { id: r1.job.id, token: r1.token, op: 'finish' },
        { id: r2.job.id, token: r2.token, op: 'fail', error: 'later', retryDelayMs: 60_000 },
      ],
      jobs: true,
    });
    expect(answer.results.map((r: any) => r.state)).toEqual(['reserved', 'finished', 'delayed']);
    expect(answer.results[2].job.lastError).toBe('later');
    // release with a delay: back to delayed, due later
    await call(client, 'Push', { topic: 'g-ack', id: 'k-3' });
    s.stream.write({ credit: 1 });
    const r3 = await s.next(() => s.reservations()[2]);
    const released = await call(client, 'Release', { id: r3.job.id, token: r3.token, delayMs: 60_000 });
    expect(released.job.state).toBe('delayed');
    expect(released.job.runAt).toBeGreaterThan(Date.now() + 50_000);
    s.stream.end();
    expect(await callError(client, 'Ack', { acks: [{ id: 'a', token: 't', op: 'finish', ttrMs: 1 }] })).toMatchObject({
      field: 'acks[0].ttrMs',
    });
  });

  it('settles the finishes of one Ack call in one finishMany, in order per job', async () => {
    await call(client, 'PushBatch', { jobs: ['m-1', 'm-2', 'm-3'].map((id) => ({ topic: 'g-many', id })) });
    const s = openStream(client);
    s.stream.write({ subscribe: { topics: ['g-many'] }, credit: 3 });
    const [r1, r2, r3] = await s.next(() => (s.reservations().length === 3 ? s.reservations() : undefined));
    const storeCalls: string[] = [];
    const heard = (c: { operation: string }) => storeCalls.push(c.operation);
    server.service.events.on('storeCall', heard);
    const answer = await call(client, 'Ack', {
      acks: [
        { id: r1.job.id, token: r1.token, op: 'finish' },
        { id: r2.job.id, token: 'stale-token', op: 'finish' },
        { id: r3.job.id, token: r3.token, op: 'touch', ttrMs: 60_000 },
        { id: r3.job.id, token: r3.token, op: 'finish' },
        { id: r1.job.id, token: r1.token, op: 'finish' },
      ],
    });
    server.service.events.off('storeCall', heard);
    s.stream.end(); // after the acks: ending the stream gives back what it still holds
    expect(answer.results.map((r: any) => [r.ok, r.state || r.error.code])).toEqual([
      [true, 'finished'],
      [false, 'E_TOKEN_MISMATCH'],
      [true, 'reserved'],
      [true, 'finished'],
      [true, 'finished'], // a repeated finish with the same token answers as the first did
    ]);
    // the first ack of r1 and r2 went in one batch; r3's finish waited for its touch and the repeat of r1 for r1's
    // first ack: those two are single finishes, stored in a finishMany of their turn (one or two turns)
    const finishMany = storeCalls.filter((op) => op === 'finishMany').length;
    expect(finishMany).toBeGreaterThanOrEqual(2);
    expect(finishMany).toBeLessThanOrEqual(3);
    expect(storeCalls.filter((op) => op === 'finish')).toHaveLength(0);
  });

  it('answers the standard health check and server reflection', async () => {
    const health = loadPackageDefinition(loadSync(require('grpc-health-check').protoPath, { enums: String })) as any;
    const healthClient = new health.grpc.health.v1.Health(server.grpcTarget, credentials.createInsecure());
    const answer = await new Promise<any>((resolve, reject) =>
      healthClient.Check({ service: 'delayq.v1.Delayq' }, (err: unknown, a: unknown) =>
        err ? reject(err) : resolve(a),
      ),
    );
    expect(answer.status).toBe('SERVING');
    healthClient.close();

    const reflectionProto = require
      .resolve('@grpc/reflection')
      .replace(/build\/src\/index\.js$/, 'build/proto/grpc/reflection/v1/reflection.proto');
    const reflection = loadPackageDefinition(loadSync(reflectionProto)) as any;
    const reflectionClient = new reflection.grpc.reflection.v1.ServerReflection(
      server.grpcTarget,
      credentials.createInsecure(),
    );
    const info = reflectionClient.ServerReflectionInfo();
    const answers: any[] = [];
    await new Promise<void>((resolve, reject) => {
      info.on('data', (a: unknown) => answers.push(a) === 2 && resolve());
      info.on('error', reject);
      info.write({ listServices: '' });
      info.write({ fileContainingSymbol: 'grpc.health.v1.Health' });
    });
    info.end();
    reflectionClient.close();
    // Both services the server answers, as docs/grpc.md lists them, each described.
    expect(answers[0].listServicesResponse.service.map((s: any) => s.name).sort()).toEqual([
      'delayq.v1.Delayq',
      'grpc.health.v1.Health',
    ]);
    expect(answers[1].fileDescriptorResponse.fileDescriptorProto.length).toBeGreaterThan(0);
  });

  it('reports its stats', async () => {
    const stats = await call(client, 'Stats', {});
    const topic = stats.topics.find((t: any) => t.topic === 'g-stream');
    expect(topic.counts.finished).toBe(2);
    expect(topic.counts.dead).toBe(1);
    expect(topic.paused).toBe(false);
  });
});

describe('gRPC auth and topic scopes', () => {
  const admin = 'admin-secret-xxxxxxxxxxxx';
  const shop = 'shop-secret-xxxxxxxxxxxxx';
  let server: GrpcTestServer;
  let client: GrpcClient;
  beforeAll(async () => {
    server = await startGrpcServer({ auth: { tokens: [{ token: admin }, { token: shop, topics: ['orders.'] }] } });
    client = grpcClient(server.grpcTarget);
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
  });

  it('needs a bearer token in the metadata and keeps a scoped token to its topics', async () => {
    expect(await callError(client, 'Stats', {})).toMatchObject({
      status: status.UNAUTHENTICATED,
      code: 'E_UNAUTHORIZED',
      field: 'authorization',
    });
    expect(await callError(client, 'Stats', {}, bearer('wrong-token-xxxxxxxxxxxx'))).toMatchObject({
      status: status.UNAUTHENTICATED,
    });
    await call(client, 'Push', { topic: 'orders.close', id: 'o-1' }, bearer(shop));
    await call(client, 'Push', { topic: 'billing', id: 'b-1' }, bearer(admin));
    expect(await callError(client, 'Push', { topic: 'billing' }, bearer(shop))).toMatchObject({
      status: status.PERMISSION_DENIED,
      field: 'topic',
    });
    // Another topic's job is answered as an id no job has.
    expect(await callError(client, 'Cancel', { id: 'b-1' }, bearer(shop))).toMatchObject({
      status: status.NOT_FOUND,
      code: 'E_NOT_FOUND',
    });
    expect(await callError(client, 'ClearAll', { confirm: 'clear-all' }, bearer(shop))).toMatchObject({
      status: status.PERMISSION_DENIED,
    });
    const seen = (await call(client, 'Stats', {}, bearer(shop))).topics.map((t: any) => t.topic);
    expect(seen).toEqual(['orders.close']);

    const s = openStream(client, bearer(shop));
    s.stream.write({ subscribe: { topics: ['orders.close', 'billing'] }, credit: 1 });
    expect(describeError(await s.next(() => s.ended()?.error))).toMatchObject({
      status: status.PERMISSION_DENIED,
      field: 'subscribe.topics[1]',
    });
  });
});
