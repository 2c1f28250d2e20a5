/**
 * One probe per operation of the OpenAPI document: orders (A) tries it on billing's (B) jobs, topics and
 * schedules, and the probe asserts the answer A must get. The suite fails when the document has an operation
 * without a probe here, so a new route cannot go untried.
 */
import { expect } from 'vitest';
import { expectAsUnknown, expectForbidden, expectOwnOnly, type Answer, type World } from './tenant-world.js';

export type Probe = (w: World) => Promise<void>;

const ids = (answer: Answer): string[] => answer.body.jobs.map((j: { id: string }) => j.id);

/** The same call on each of B's jobs, answered as on unknown ids. */
async function byId(w: World, what: string, send: (id: string) => Promise<Answer>): Promise<void> {
  for (const id of Object.values(w.named)) await expectAsUnknown(w, id, send, `${what} ${id}`);
}

/** The same call with B's reservation token on B's reserved job, answered as on an unknown id. */
async function settle(w: World, op: string, json: Record<string, unknown> = {}): Promise<void> {
  await expectAsUnknown(
    w,
    w.named.reserved,
    (id) => w.a('POST', `/v1/jobs/${id}/${op}`, { token: w.reservationToken, ...json }),
    op,
  );
}

/** Another topic's schedule: as a name no schedule has. */
async function schedule(w: World, method: string, suffix: string, json?: unknown): Promise<void> {
  await expectAsUnknown(w, w.namedSchedule, (name) => w.a(method, `/v1/schedules/${name}${suffix}`, json), suffix);
}

export const REST_PROBES: Record<string, Probe> = {
  'GET /health': async (w) => expect((await w.a('GET', '/health')).status).toBe(200),
  'GET /ready': async (w) => expect((await w.a('GET', '/ready')).status).toBe(200),

  'POST /v1/jobs': async (w) => {
    expectForbidden(await w.a('POST', '/v1/jobs', { topic: w.namedTopic, id: 'never-1' }), 'push to B');
    for (const id of Object.values(w.named)) {
      const taken = await w.a('POST', '/v1/jobs', { topic: w.ownTopic, id, body: 1 });
      expect(taken).toMatchObject({ status: 409, body: { error: { code: 'E_CONFLICT', field: 'id' } } });
      expect(taken.text).not.toContain('billing');
    }
  },
  'POST /v1/jobs/batch': async (w) => {
    const other = await w.a('POST', '/v1/jobs/batch', { jobs: [{ topic: w.ownTopic }, { topic: w.namedTopic }] });
    expectForbidden(other, 'batch to B');
    const taken = await w.a('POST', '/v1/jobs/batch', {
      jobs: [{ topic: w.ownTopic }, { topic: w.ownTopic, id: w.named.delayed }],
    });
    expect(taken).toMatchObject({ status: 409, body: { error: { code: 'E_CONFLICT', field: 'jobs[1].id' } } });
  },
  'GET /v1/jobs': async (w) => {
    for (const query of ['', '?bizKey=shared-key', '?tag=shared-tag', '?state=reserved', '?limit=1']) {
      const listed = await w.a('GET', `/v1/jobs${query}`);
      expectOwnOnly(listed, `list ${query}`);
    }
    expect(ids(await w.a('GET', '/v1/jobs?bizKey=shared-key&limit=1000'))).toEqual(expect.arrayContaining(w.ownIds));
    expectForbidden(await w.a('GET', `/v1/jobs?topic=${w.namedTopic}`), 'list B');
  },
  'GET /v1/jobs/{id}': (w) => byId(w, 'get', (id) => w.a('GET', `/v1/jobs/${id}?history=true`)),
  'GET /v1/jobs/{id}/history': (w) => byId(w, 'history', (id) => w.a('GET', `/v1/jobs/${id}/history`)),
  'POST /v1/jobs/{id}/cancel': (w) => byId(w, 'cancel', (id) => w.a('POST', `/v1/jobs/${id}/cancel`)),
  'POST /v1/jobs/{id}/reschedule': (w) =>
    byId(w, 'reschedule', (id) => w.a('POST', `/v1/jobs/${id}/reschedule`, { delayMs: 1000 })),
  'POST /v1/jobs/{id}/run-now': (w) => byId(w, 'run now', (id) => w.a('POST', `/v1/jobs/${id}/run-now`, {})),
  'POST /v1/jobs/{id}/touch': (w) => settle(w, 'touch'),
  'POST /v1/jobs/{id}/finish': (w) => settle(w, 'finish', { result: { stolen: true } }),
  'POST /v1/jobs/{id}/fail': (w) => settle(w, 'fail', { bury: true }),
  'POST /v1/jobs/{id}/release': (w) => settle(w, 'release'),
  'POST /v1/jobs/{id}/restore': async (w) =>
    expectForbidden(await w.a('POST', `/v1/jobs/${w.named.delayed}/restore`, {}), 'restore one'),
  'GET /v1/jobs/{id}/events': (w) => byId(w, 'events', (id) => w.a('GET', `/v1/jobs/${id}/events`)),
  'POST /v1/jobs/bulk': async (w) => {
    for (const selector of [{ topic: w.namedTopic }, { bizKey: 'shared-key' }, { tag: 'shared-tag' }])
      expectForbidden(await w.a('POST', '/v1/jobs/bulk', { action: 'cancel', selector }), 'bulk');
  },
  'POST /v1/purge': async (w) => expectForbidden(await w.a('POST', '/v1/purge', { before: Date.now() }), 'purge'),
  'POST /v1/reserve': async (w) => {
    expectForbidden(await w.a('POST', '/v1/reserve', { topics: [w.namedTopic] }), 'reserve B');
    const own = await w.a('POST', '/v1/reserve', {
      topics: [w.ownTopic],
      acks: [{ id: w.named.reserved, token: w.reservationToken, op: 'finish' }],
    });
    expect(own.body.acks[0].error.code).toBe('E_NOT_FOUND');
    expectOwnOnly(own, 'reserve own');
  },
  'POST /v1/ack': async (w) => {
    const send = (id: string) => w.a('POST', '/v1/ack', { acks: [{ id, token: w.reservationToken, op: 'finish' }] });
    await expectAsUnknown(w, w.named.reserved, send, 'ack');
  },
  'GET /v1/stats': async (w) => {
    const stats = await w.a('GET', '/v1/stats');
    expectOwnOnly(stats, 'stats');
    expect(stats.body.topics.map((t: { topic: string }) => t.topic)).toContain(w.ownTopic);
  },
  'GET /v1/topics': async (w) => {
    const listed = await w.a('GET', '/v1/topics?limit=1000');
    expectOwnOnly(listed, 'topic list');
    expect(listed.body.topics.map((t: { topic: string }) => t.topic)).toContain(w.ownTopic);
    expectOwnOnly(await w.a('GET', '/v1/topics?prefix=billing'), 'topic list by prefix');
  },
  'GET /v1/stats/series': async (w) => {
    expectOwnOnly(await w.a('GET', '/v1/stats/series?windowMs=600000'), 'series');
    expectForbidden(await w.a('GET', `/v1/stats/series?topic=${w.namedTopic}`), 'series B');
  },
  'GET /v1/consumers': async (w) => {
    expectOwnOnly(await w.a('GET', '/v1/consumers'), 'consumers');
    expectForbidden(await w.a('GET', `/v1/consumers?topic=${w.namedTopic}`), 'consumers B');
  },
  'GET /v1/topics/{topic}/stats': async (w) =>
    expectForbidden(await w.a('GET', `/v1/topics/${w.namedTopic}/stats`), 'topic stats'),
  'GET /v1/stats/due': async (w) => {
    const range = `from=${Date.now()}&to=${Date.now() + 3_600_000}&bucketMs=60000`;
    const all = await w.a('GET', `/v1/stats/due?${range}`);
    expectOwnOnly(all, 'due all');
    expect(all.body.total).toBe(w.ownIds.length);
    expectForbidden(await w.a('GET', `/v1/stats/due?topic=${w.namedTopic}`), 'due B');
  },
  'POST /v1/topics/{topic}/pause': async (w) =>
    expectForbidden(await w.a('POST', `/v1/topics/${w.namedTopic}/pause`, {}), 'pause'),
  'GET /v1/topics/{topic}/settings': async (w) =>
    expectForbidden(await w.a('GET', `/v1/topics/${w.namedTopic}/settings`), 'settings'),
  'PUT /v1/topics/{topic}/settings': async (w) =>
    expectForbidden(await w.a('PUT', `/v1/topics/${w.namedTopic}/settings`, {}), 'set settings'),
  'POST /v1/topics/{topic}/resume': async (w) =>
    expectForbidden(await w.a('POST', `/v1/topics/${w.namedTopic}/resume`, {}), 'resume'),
  'POST /v1/topics/{topic}/groups/{group}/pause': async (w) =>
    expectForbidden(await w.a('POST', `/v1/topics/${w.namedTopic}/groups/g-1/pause`, {}), 'pause group'),
  'POST /v1/topics/{topic}/groups/{group}/resume': async (w) =>
    expectForbidden(await w.a('POST', `/v1/topics/${w.namedTopic}/groups/g-1/resume`, {}), 'resume group'),
  'GET /v1/topics/{topic}/groups/paused': async (w) =>
    expectForbidden(await w.a('GET', `/v1/topics/${w.namedTopic}/groups/paused`), 'paused groups'),
  'GET /v1/dead': async (w) => {
    expectForbidden(await w.a('GET', `/v1/dead?topic=${w.namedTopic}`), 'dead');
    expectOwnOnly(await w.a('GET', `/v1/dead?topic=${w.ownTopic}`), 'own dead');
  },
  'POST /v1/dead/redrive': async (w) => {
    expectForbidden(await w.a('POST', '/v1/dead/redrive', { topic: w.namedTopic }), 'redrive topic');
    expect((await w.a('POST', '/v1/dead/redrive', { ids: [w.named.dead] })).body).toEqual({ count: 0 });
  },
  'GET /v1/delayed': async (w) => {
    const listed = await w.a('GET', '/v1/delayed');
    expectOwnOnly(listed, 'delayed');
    expect(ids(listed)).toEqual(expect.arrayContaining(w.ownIds));
    expectForbidden(await w.a('GET', `/v1/delayed?topic=${w.namedTopic}`), 'delayed B');
  },
  'GET /v1/reserved': async (w) => {
    expectOwnOnly(await w.a('GET', '/v1/reserved'), 'reserved');
    expectForbidden(await w.a('GET', `/v1/reserved?topic=${w.namedTopic}`), 'reserved B');
  },
  'GET /v1/events': async (w) => expectForbidden(await w.a('GET', `/v1/events?topic=${w.namedTopic}`), 'events'),
  'GET /v1/sinks': async (w) => expectOwnOnly(await w.a('GET', '/v1/sinks'), 'sinks'),
  'GET /v1/topics/{topic}/sink': async (w) =>
    expectForbidden(await w.a('GET', `/v1/topics/${w.namedTopic}/sink`), 'sink get'),
  'PUT /v1/topics/{topic}/sink': async (w) =>
    expectForbidden(
      await w.a('PUT', `/v1/topics/${w.namedTopic}/sink`, { type: 'webhook', url: 'http://127.0.0.1:7698/x' }),
      'sink put',
    ),
  'DELETE /v1/topics/{topic}/sink': async (w) =>
    expectForbidden(await w.a('DELETE', `/v1/topics/${w.namedTopic}/sink`), 'sink delete'),
  'POST /v1/topics/{topic}/sink/test': async (w) =>
    expectForbidden(await w.a('POST', `/v1/topics/${w.namedTopic}/sink/test`, {}), 'sink test'),
  'POST /v1/schedules/{name}/preview': async (w) => {
    const own = { topic: w.ownTopic, everyMs: 60_000 };
    const taken = await w.a('POST', `/v1/schedules/${w.namedSchedule}/preview`, own);
    expect(taken.status).toBe(200);
    expect(taken.text).not.toContain('billing');
    expectForbidden(
      await w.a('POST', '/v1/schedules/never-made/preview', { ...own, topic: w.namedTopic }),
      'preview B',
    );
  },
  'GET /v1/schedules': async (w) => expectOwnOnly(await w.a('GET', '/v1/schedules'), 'schedules'),
  'GET /v1/schedules/{name}': (w) => schedule(w, 'GET', ''),
  'GET /v1/schedules/{name}/fires': (w) => schedule(w, 'GET', '/fires?next=5&last=5'),
  'POST /v1/schedules/{name}/pause': (w) => schedule(w, 'POST', '/pause', {}),
  'POST /v1/schedules/{name}/resume': (w) => schedule(w, 'POST', '/resume', {}),
  'DELETE /v1/schedules/{name}': (w) => schedule(w, 'DELETE', ''),
  'PUT /v1/schedules/{name}': async (w) => {
    const taken = await w.a('PUT', `/v1/schedules/${w.namedSchedule}`, { topic: w.ownTopic, everyMs: 60_000 });
    expect(taken).toMatchObject({ status: 409, body: { error: { code: 'E_CONFLICT', field: 'name' } } });
    expect(taken.text).not.toContain('billing');
    const other = await w.a('PUT', '/v1/schedules/never-made', { topic: w.namedTopic, everyMs: 60_000 });
    expectForbidden(other, 'schedule in B');
  },
  'GET /v1/journal': async (w) => expectForbidden(await w.a('GET', '/v1/journal'), 'journal'),
  'POST /v1/restore': async (w) => expectForbidden(await w.a('POST', '/v1/restore', {}), 'restore'),
  'POST /v1/clear-all': async (w) =>
    expectForbidden(await w.a('POST', '/v1/clear-all', { confirm: 'clear-all' }), 'clear-all'),
  'GET /metrics': async (w) => expectForbidden(await w.a('GET', '/metrics'), 'metrics'),

  'POST /push': async (w) => {
    expectForbidden(await w.a('POST', '/push', { topic: w.namedTopic, id: 'never-2' }), 'mykit push');
    expect((await w.a('POST', '/push', { topic: w.ownTopic, id: w.named.ready })).body.message).toMatch(/^E_CONFLICT/);
  },
  'GET /get/{topic}': async (w) => expectForbidden(await w.a('GET', `/get/${w.namedTopic}`), 'mykit get'),
  'GET /finish': (w) => byId(w, 'mykit finish', (id) => w.a('GET', `/finish?jobId=${id}`)),
  'GET /delete': (w) => byId(w, 'mykit delete', (id) => w.a('GET', `/delete?jobId=${id}`)),
  'GET /reStore': async (w) => expectForbidden(await w.a('GET', '/reStore'), 'reStore'),
  'GET /reStore/{id}': async (w) => expectForbidden(await w.a('GET', `/reStore/${w.named.delayed}`), 'reStore id'),
  'GET /reStoreJob': async (w) =>
    expectForbidden(await w.a('GET', `/reStoreJob?jobId=${w.named.delayed}`), 'reStoreJob'),
  'GET /clearAll': async (w) => expectForbidden(await w.a('GET', '/clearAll?confirm=clear-all'), 'clearAll'),
  'POST /youzan': async (w) => {
    expectForbidden(await w.a('POST', '/youzan', { command: 'add', topic: w.namedTopic, id: 'never-3' }), 'add');
    expectForbidden(await w.a('POST', '/youzan', { command: 'pop', topic: w.namedTopic }), 'pop');
    const taken = await w.a('POST', '/youzan', { command: 'add', topic: w.ownTopic, id: w.named.ready });
    expect(taken.body.error).toMatch(/^E_CONFLICT/);
    for (const command of ['finish', 'delete'])
      await byId(w, `youzan ${command}`, (id) => w.a('POST', '/youzan', { command, id }));
  },
};
