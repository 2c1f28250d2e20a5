import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DelayqClient } from '../../src/client/client.js';
import { loadConfig } from '../../src/config.js';
import { createService } from '../../src/create-service.js';
import type { WireJobEvent } from '../../src/protocol/job-event-schemas.js';
import { buildApp, closeGracefully, type DelayqApp } from '../../src/server/app.js';
import type { DelayqService } from '../../src/service/service.js';
import { waitFor } from '../helpers/http-server.js';
import { postgresJournalDatabase, PG_URL, type JournalDatabase } from '../helpers/journal-databases.js';
import { prefixPool } from '../helpers/redis-prefix.js';

interface Instance {
  service: DelayqService;
  app: DelayqApp;
  client: DelayqClient;
}

/** Followers registered on an instance's Redis event log (its reader fans out to them). */
const followers = (i: Instance) => (i.service.store.jobEvents as unknown as { followers: Set<unknown> }).followers.size;

const prefixes = prefixPool('events');
let database: JournalDatabase | undefined;
afterAll(async () => {
  await prefixes.sweep();
  await database?.drop();
});

describe.each(['redis', 'redis+postgres'] as const)('job events across two instances on %s', (kind) => {
  let a: Instance;
  let b: Instance;

  async function start(prefix: string, schema: string | undefined): Promise<Instance> {
    const config = loadConfig({
      env: {},
      overrides: {
        store: { kind: 'redis' },
        redis: { url: 'redis://127.0.0.1:6379', prefix, partitions: 2 },
        ...(schema ? { journal: { kind: 'postgres', url: PG_URL, schema } } : {}),
      },
    });
    const service = createService(config);
    await service.start();
    const app = await buildApp(service, config);
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    return { service, app, client: new DelayqClient({ url }) };
  }

  beforeEach(async () => {
    const prefix = prefixes.next();
    let schema: string | undefined;
    if (kind === 'redis+postgres') {
      database ??= await postgresJournalDatabase();
      schema = database.name;
      await database.truncate();
    }
    a = await start(prefix, schema);
    b = await start(prefix, schema);
  });
  afterEach(async () => {
    for (const i of [a, b]) {
      await i.client.close();
      await closeGracefully(i.app, i.service, 100);
    }
  });

  it('push, reserve and finish on A: the follower on B sees finished with the result, then resumes by id', async () => {
    const got: WireJobEvent[] = [];
    const following = (async () => {
      for await (const e of b.client.events({ topic: 'orders' })) {
        got.push(e);
        if (got.length === 2) break;
      }
    })();
    await waitFor(() => followers(b) === 1, 'the follower registered on B');
    await a.client.push({ topic: 'orders', id: 'o-1', body: { n: 1 } });
    await a.client.push({ topic: 'other', id: 'x-1', body: 0 });
    const [x] = await a.client.reserve({ topics: ['other'] });
    await a.client.finish('x-1', x!.token);
    const [r] = await a.client.reserve({ topics: ['orders'] });
    await a.client.finish('o-1', r!.token, { result: { shipped: true } });
    await a.client.push({ topic: 'orders', id: 'o-2', body: { n: 2 }, retry: { maxAttempts: 1 } });
    const [r2] = await a.client.reserve({ topics: ['orders'] });
    await a.client.fail('o-2', r2!.token, { error: { message: 'no stock', code: 'STOCK' } });
    await following;
    expect(got.map((e) => [e.event, e.id, e.topic])).toEqual([
      ['finished', 'o-1', 'orders'],
      ['dead', 'o-2', 'orders'],
    ]);
    expect(got[0]!.result).toEqual({ shipped: true });
    expect(got[1]!.error).toMatchObject({ message: 'no stock', code: 'STOCK' });
    expect(got[0]!.eventId).toMatch(/^\d+-\d+$/);

    // Resume on A after B's first event: the stream is shared, so A answers the same second event.
    const resumed: WireJobEvent[] = [];
    for await (const e of a.client.events({ topic: 'orders', lastEventId: got[0]!.eventId })) {
      resumed.push(e);
      break;
    }
    expect(resumed.map((e) => [e.eventId, e.id])).toEqual([[got[1]!.eventId, 'o-2']]);
    await waitFor(() => followers(a) + followers(b) === 0, 'every follower gone');
  });

  it("the follower on B sees `expired` from the timer and `cancelled` from A's bulk cancel", async () => {
    const got: WireJobEvent[] = [];
    const following = (async () => {
      for await (const e of b.client.events({ topic: 'carts' })) {
        got.push(e);
        if (got.length === 4) break;
      }
    })();
    await waitFor(() => followers(b) === 1, 'the follower registered on B');
    await a.client.push({ topic: 'carts', id: 'c-ttl', body: 1, ttlMs: 100 });
    await waitFor(() => got.length === 1, 'the expiry reached B');
    for (const id of ['c-1', 'c-2', 'c-3']) await a.client.push({ topic: 'carts', id, body: 1, delayMs: 60_000 });
    let cursor: string | null = null;
    do {
      const page = await a.client.bulk({
        action: 'cancel',
        selector: { topic: 'carts', state: 'delayed' },
        reason: 'cart emptied',
        limit: 2,
        ...(cursor ? { cursor } : {}),
      });
      cursor = page.next;
    } while (cursor);
    await following;
    expect(got[0]).toMatchObject({ event: 'expired', id: 'c-ttl', topic: 'carts' });
    expect(
      got
        .slice(1)
        .map((e) => [e.event, e.id])
        .sort(),
    ).toEqual([
      ['cancelled', 'c-1'],
      ['cancelled', 'c-2'],
      ['cancelled', 'c-3'],
    ]);
    expect(got[1]!.error).toMatchObject({ message: 'cart emptied' });
    await waitFor(() => followers(b) === 0, 'the follower gone');
  });

  it("a job's stream on B ends with `end` once A finishes the job", async () => {
    await a.client.push({ topic: 'mail', id: 'm-1', body: 1 });
    const events: WireJobEvent[] = [];
    const one = (async () => {
      for await (const e of b.client.jobEvents('m-1')) events.push(e);
    })();
    await waitFor(() => followers(b) === 1, 'the job follower registered on B');
    const [r] = await a.client.reserve({ topics: ['mail'] });
    await a.client.finish('m-1', r!.token, { result: 'sent' });
    await one;
    expect(events.map((e) => [e.event, e.id, e.result])).toEqual([['finished', 'm-1', 'sent']]);
    await waitFor(() => followers(b) === 0, 'the follower gone');
  });
});
