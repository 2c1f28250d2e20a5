/**
 * Answers of the HTTP API that said something untrue, in each shape (embedded SQLite, Redis, Redis with a
 * PostgreSQL journal): a one-item batch names `jobs[0].field`, a list cursor no page gave is refused, a
 * redrive's empty id list is named as such, GET /v1/journal says whether there is a journal, the seed
 * endpoints' `code` agrees with an access refusal's status, a per-item ack refusal is in docs/batch-ack.md.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startServer, type TestServer } from '../helpers/http-server.js';
import { PG_URL, postgresJournalDatabase, type JournalDatabase } from '../helpers/journal-databases.js';
import { prefixPool } from '../helpers/redis-prefix.js';

const prefixes = prefixPool('answers');
const ADMIN = 'answers-admin-token-0123456789';
const SCOPED = 'answers-scoped-token-0123456789';
const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const docs = (name: string) => readFileSync(join(import.meta.dirname, '..', '..', 'docs', name), 'utf8');

describe.each(['sqlite', 'redis', 'journal'] as const)('HTTP answers on %s', (shape) => {
  let server: TestServer;
  let database: JournalDatabase | undefined;
  const call = (method: string, path: string, json?: unknown, token = ADMIN) =>
    http(server.url, method, path, { ...(json === undefined ? {} : { json }), headers: auth(token) });

  beforeAll(async () => {
    database = shape === 'journal' ? await postgresJournalDatabase() : undefined;
    server = await startServer({
      overrides: {
        auth: { tokens: [{ token: ADMIN }, { token: SCOPED, topics: ['mine.'] }] },
        ...(shape === 'sqlite' ? {} : { store: { kind: 'redis' }, redis: { prefix: prefixes.next() } }),
        ...(database ? { journal: { kind: 'postgres', url: PG_URL, schema: database.name } } : {}),
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    if (shape !== 'sqlite') await prefixes.sweep();
    await database?.drop();
  });

  it('a batch of one names the field as jobs[0].field, as a batch of two does', async () => {
    for (const jobs of [[{ topic: 't', delayMs: 'soon' }], [{ topic: 't' }, { topic: 't', delayMs: 'soon' }]]) {
      const index = jobs.length - 1;
      const answer = await call('POST', '/v1/jobs/batch', { jobs });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'E_VALIDATION', field: `jobs[${index}].delayMs` });
      expect(answer.body.error.message).toMatch(new RegExp(`^jobs\\[${index}\\]\\.delayMs: `));
    }
    // One job's own request names the field alone, a retention too.
    expect((await call('POST', '/v1/jobs', { topic: 't', delayMs: 'soon' })).body.error.field).toBe('delayMs');
    const retention = await call('POST', '/v1/jobs', { topic: 't', retention: { finishedMs: -1 } });
    expect(retention.body.error.field).toBe('retention.finishedMs');
    const batched = await call('POST', '/v1/jobs/batch', { jobs: [{ topic: 't', retention: { finishedMs: -1 } }] });
    expect(batched.body.error.field).toBe('jobs[0].retention.finishedMs');
  });

  it('a list cursor that no page gave is refused naming cursor; the pages still chain', async () => {
    for (const path of ['/v1/jobs?cursor=garbage', '/v1/jobs?cursor=after:', '/v1/dead?topic=t&cursor=garbage']) {
      const answer = await call('GET', path);
      expect(answer.status, path).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'E_VALIDATION', field: 'cursor' });
    }
    const topic = `pages-${shape}`;
    await call('POST', '/v1/jobs/batch', {
      jobs: Array.from({ length: 5 }, (_, i) => ({ topic, id: `${topic}-${i}`, delayMs: '1h' })),
    });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await call('GET', `/v1/jobs?topic=${topic}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.jobs.map((j: { id: string }) => j.id));
      cursor = page.body.next;
    } while (cursor !== null);
    expect(seen).toEqual([0, 1, 2, 3, 4].map((i) => `${topic}-${i}`));
  });

  it('a redrive with an empty id list names what is wrong with it, not an unknown field', async () => {
    const answer = await call('POST', '/v1/dead/redrive', { ids: [] });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'E_VALIDATION', field: 'ids' });
    expect(answer.body.error.message).not.toMatch(/not a known field/);
    expect(answer.body.error.message).toMatch(/fewer than 1/);
    expect((await call('POST', '/v1/dead/redrive', { topic: 't', limit: 0 })).body.error.field).toBe('limit');
  });

  it('GET /v1/journal says whether there is a journal, and docs/journal.md says so', async () => {
    const answer = await call('GET', '/v1/journal');
    expect(answer.status).toBe(200);
    if (shape === 'journal') expect(answer.body).toMatchObject({ available: true, restoreMode: expect.any(String) });
    else expect(answer.body).toEqual({ available: false });
    expect(docs('journal.md')).toMatch(/`GET \/v1\/journal`[^`]*`\{"available": false\}`/);
  });

  it("the seed endpoints' code field is the access refusal's HTTP status (docs/compat.md)", async () => {
    const denied = await http(server.url, 'POST', '/push', { json: { topic: 'other' }, headers: auth(SCOPED) });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ success: false, code: 403 });
    const anonymous = await http(server.url, 'GET', '/get/mine.x');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ success: false, code: 401 });
    // An ordinary refusal is HTTP 200 with code 500, as the seed answered.
    const missing = await http(server.url, 'GET', '/delete?jobId=none-such', { headers: auth(ADMIN) });
    expect(missing).toMatchObject({ status: 200, body: { success: false, code: 500 } });
  });

  it('an oversized result or error detail refuses that ack only, as docs/batch-ack.md lists', async () => {
    const topic = `acks-${shape}`;
    await call('POST', '/v1/jobs/batch', { jobs: [0, 1, 2].map((i) => ({ topic, id: `${topic}-${i}` })) });
    const held = (await call('POST', '/v1/reserve', { topics: [topic], count: 3 })).body.reservations as {
      job: { id: string };
      token: string;
    }[];
    const [a, b, c] = held.sort((x, y) => (x.job.id < y.job.id ? -1 : 1));
    const answer = await call('POST', '/v1/ack', {
      acks: [
        { id: a!.job.id, token: a!.token, op: 'finish' },
        { id: b!.job.id, token: b!.token, op: 'finish', result: 'x'.repeat(70 * 1024) },
        { id: c!.job.id, token: c!.token, op: 'fail', error: { message: 'm', details: 'y'.repeat(20 * 1024) } },
      ],
    });
    expect(answer.status).toBe(200);
    const results = answer.body.results as { ok: boolean; error?: { code: string; field: string } }[];
    expect(results.map((r) => (r.ok ? 'ok' : `${r.error!.code} ${r.error!.field}`))).toEqual([
      'ok',
      'E_VALIDATION acks[1].result',
      'E_VALIDATION acks[2].error.details',
    ]);
    expect((await call('GET', `/v1/jobs/${b!.job.id}`)).body.job.state).toBe('reserved');
    // The item errors of the page's table: every code an item was answered with is in it, with its field.
    const table = docs('batch-ack.md').split('| item error |')[1]!.split('\n\n')[0]!;
    for (const r of results.filter((x) => !x.ok)) {
      const field = r.error!.field.replace(/^acks\[\d+\]/, 'acks[i]');
      expect(table, `${r.error!.code} ${field}`).toMatch(
        new RegExp(`\`${r.error!.code}\`[^\\n]*\`${field.replace(/[[\].]/g, '\\$&')}\``),
      );
    }
  });
});

describe('a schedule starts at a time a job could have', () => {
  it('startAt 1e300 (or beyond 10 years) and endAt beyond any date are refused naming the field', async () => {
    const { normalizeSchedule } = await import('../../src/schedules/schedule-input.js');
    const now = Date.parse('2026-06-01T00:00:00Z');
    const refusal = (input: Record<string, unknown>) => {
      try {
        normalizeSchedule('s', { topic: 't', everyMs: 1000, ...input }, now);
        return null;
      } catch (err) {
        return (err as { field?: string }).field;
      }
    };
    expect(refusal({ startAt: 1e300 })).toBe('startAt');
    expect(refusal({ startAt: now + 11 * 366 * 86_400_000 })).toBe('startAt');
    expect(refusal({ endAt: 1e300 })).toBe('endAt');
    expect(refusal({ startAt: now + 86_400_000, endAt: now + 20 * 366 * 86_400_000 })).toBeNull();
  });
});
