import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createRuntime, type DelayqRuntime } from '../../src/runtime.js';
import { buildApp, type DelayqApp } from '../../src/server/app.js';
import { http, waitFor } from '../helpers/http-server.js';
import { DelayqClient } from '../../src/client/client.js';
import { DelayqError } from '../../src/core/errors.js';
import { spreadOffsetMs } from '../../src/core/spread.js';

let runtime: DelayqRuntime;
let app: DelayqApp;
let url: string;

beforeAll(async () => {
  const config = loadConfig({
    env: {},
    overrides: { sqlite: { path: ':memory:' }, schedules: { leadMs: 500, refreshIntervalMs: 200 } },
  });
  runtime = createRuntime(config);
  await runtime.start();
  app = await buildApp(runtime.service, config, { schedules: runtime.schedules });
  url = await app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await app?.close();
  await runtime?.close();
});

describe('/v1/schedules', () => {
  it('creates, reads, lists, replaces, pauses, resumes and deletes a schedule', async () => {
    const put = await http(url, 'PUT', '/v1/schedules/nightly', {
      json: {
        topic: 'report',
        cron: '0 0 2 * * *',
        timeZone: 'Asia/Shanghai',
        job: { body: { kind: 'nightly' }, priority: 5 },
      },
    });
    expect(put.status).toBe(201);
    expect(put.body.schedule).toMatchObject({
      name: 'nightly',
      topic: 'report',
      missed: 'once',
      paused: false,
      revision: 1,
      fired: 0,
    });
    expect(new Date(put.body.schedule.nextFireAt).toISOString()).toMatch(/T18:00:00\.000Z$/); // 02:00 in Shanghai
    const replaced = await http(url, 'PUT', '/v1/schedules/nightly', {
      json: { topic: 'report', everyMs: '1h', missed: 'skip' },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.schedule).toMatchObject({ revision: 2, cron: null, everyMs: 3_600_000, missed: 'skip' });
    expect((await http(url, 'GET', '/v1/schedules/nightly')).body.schedule.revision).toBe(2);
    expect((await http(url, 'GET', '/v1/schedules')).body.schedules.map((s: { name: string }) => s.name)).toContain(
      'nightly',
    );
    const paused = await http(url, 'POST', '/v1/schedules/nightly/pause');
    expect(paused.body.schedule).toMatchObject({ paused: true, nextFireAt: null });
    const resumed = await http(url, 'POST', '/v1/schedules/nightly/resume');
    expect(resumed.body.schedule.paused).toBe(false);
    expect(resumed.body.schedule.nextFireAt).toBeGreaterThan(Date.now());
    expect((await http(url, 'DELETE', '/v1/schedules/nightly')).body).toEqual({ deleted: true });
    const gone = await http(url, 'GET', '/v1/schedules/nightly');
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('E_NOT_FOUND');
  });

  it('fires: an every-second schedule pushes jobs with id <name>~<tick> that a consumer reserves', async () => {
    await http(url, 'PUT', '/v1/schedules/beat', { json: { topic: 'beat', everyMs: 1000, job: { body: 'tick' } } });
    const got = await http(url, 'POST', '/v1/reserve', { json: { topics: ['beat'], waitMs: 5000 } });
    const job = got.body.reservations[0].job;
    expect(job.id).toMatch(/^beat~\d{13}$/);
    expect(job.body).toBe('tick');
    expect(job.runAt).toBe(Number(job.id.split('~')[1]));
    await http(url, 'DELETE', '/v1/schedules/beat');
  });

  it('fires: a template with spreadMs makes each tick job due at its tick plus the offset of its id', async () => {
    await http(url, 'PUT', '/v1/schedules/spread-beat', {
      json: { topic: 'spread-beat', everyMs: 1000, job: { spreadMs: 400 } },
    });
    const got = await http(url, 'POST', '/v1/reserve', { json: { topics: ['spread-beat'], waitMs: 5000 } });
    const job = got.body.reservations[0].job;
    expect(job.runAt).toBe(Number(job.id.split('~')[1]) + spreadOffsetMs(job.id, 400));
    expect((await http(url, 'GET', '/v1/schedules/spread-beat')).body.schedule.job).toEqual({ spreadMs: 400 });
    await http(url, 'DELETE', '/v1/schedules/spread-beat');
  });

  it('fires: lists the coming ticks not pushed yet and the latest fires with their jobs, newest first', async () => {
    const client = new DelayqClient({ url });
    await client.putSchedule('pulse', { topic: 'pulse', everyMs: 1000, job: { body: 'p' } });
    await waitFor(async () => (await client.getSchedule('pulse')).fired >= 3, '3 fires', 10_000);
    const fires = await client.scheduleFires('pulse', { next: 4, last: 2 });
    expect(fires.next).toHaveLength(4);
    expect(fires.last).toHaveLength(2);
    const [newest, older] = fires.last;
    expect(newest!.tickAt - older!.tickAt).toBe(1000);
    expect(newest!.jobId).toBe(`pulse~${newest!.tickAt}`);
    expect(newest!.job).toMatchObject({ id: newest!.jobId, topic: 'pulse', body: 'p', runAt: newest!.tickAt });
    expect(fires.next[0]).toBeGreaterThan(newest!.tickAt);
    expect(fires.next.every((t, i) => i === 0 || t - fires.next[i - 1]! === 1000)).toBe(true);
    // a paused schedule has no next fires; its fired jobs stay listed
    await client.pauseSchedule('pulse');
    const paused = (await http(url, 'GET', '/v1/schedules/pulse/fires')).body;
    expect(paused.next).toEqual([]);
    expect(paused.last.length).toBeGreaterThanOrEqual(3);
    const tooMany = await http(url, 'GET', '/v1/schedules/pulse/fires?last=51');
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.field).toBe('last');
    expect((await http(url, 'GET', '/v1/schedules/nope/fires')).status).toBe(404);
    await client.deleteSchedule('pulse');
  });

  it.each([
    [{ topic: 't', cron: '61 * * * * *' }, 'cron'],
    [{ topic: 't', cron: 'every day' }, 'cron'],
    [{ topic: 't', cron: '* * * * * *', timeZone: 'Mars/Olympus' }, 'timeZone'],
    [{ topic: 't', everyMs: 0 }, 'everyMs'],
    [{ topic: 't', everyMs: '0s' }, 'everyMs'],
    [{ topic: 't' }, 'cron'],
    [{ topic: 't', cron: '* * * * * *', everyMs: 1000 }, 'cron'],
    [{ topic: 't', everyMs: 1000, job: { priority: 1.5 } }, 'job.priority'],
    [{ topic: 't', everyMs: 1000, job: { retry: '4m,soon' } }, 'job.retry[1]'],
    [{ topic: 't', everyMs: 1000, job: { ttrMs: 5 } }, 'job.ttrMs'],
    [{ topic: 't', everyMs: 1000, job: { spreadMs: -1 } }, 'job.spreadMs'],
    [{ topic: 't', everyMs: 1000, job: { spreadMs: 86_400_001 } }, 'job.spreadMs'],
    [{ topic: 't', everyMs: 1000, job: { id: 'x' } }, 'job.id'],
    [{ topic: 't', everyMs: 1000, startAt: '2026-12-01T10:00' }, 'startAt'],
    [{ topic: 't', everyMs: 1000, startAt: 2_000_000_000_000, endAt: 1_900_000_000_000 }, 'endAt'],
    [{ topic: 't', everyMs: 1000, missed: 'all' }, 'missed'],
    [{ topic: 'bad topic', everyMs: 1000 }, 'topic'],
  ])('refuses %j with 400 naming %s', async (json, field) => {
    const res = await http(url, 'PUT', '/v1/schedules/bad', { json });
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe(field);
  });

  it('previews the ticks a definition would fire across a DST change, storing nothing', async () => {
    // 02:30 every day in Europe/Berlin, around the next spring change (the last Sunday of March, 02:00 → 03:00)
    const year = new Date().getUTCFullYear() + (new Date().getUTCMonth() >= 2 ? 1 : 0);
    const lastOfMarch = Date.UTC(year, 2, 31);
    const change = lastOfMarch - new Date(lastOfMarch).getUTCDay() * 86_400_000; // a Sunday, 00:00Z
    const day = 86_400_000;
    const preview = await http(url, 'POST', '/v1/schedules/berlin-night/preview?next=4', {
      json: { topic: 'report', cron: '0 30 2 * * *', timeZone: 'Europe/Berlin', startAt: change - 2 * day },
    });
    expect(preview.status).toBe(200);
    expect(preview.body.timeZone).toBe('Europe/Berlin');
    const next = preview.body.next as number[];
    expect(next[0]).toBe(change - 2 * day + 90 * 60_000); // 02:30 at +01:00 is 01:30Z
    expect(next[1]).toBe(change - day + 90 * 60_000);
    expect(next[3]).toBe(change + day + 30 * 60_000); // 02:30 at +02:00 is 00:30Z
    expect((await http(url, 'GET', '/v1/schedules/berlin-night')).status).toBe(404);
    // a replacement previews from its first tick not yet pushed, as if active even when paused
    await http(url, 'PUT', '/v1/schedules/every-min', { json: { topic: 'report', everyMs: '1m' } });
    await http(url, 'POST', '/v1/schedules/every-min/pause');
    const every = await http(url, 'POST', '/v1/schedules/every-min/preview', {
      json: { topic: 'report', everyMs: '2m' },
    });
    expect(every.body.next).toHaveLength(10);
    expect(every.body.next[1] - every.body.next[0]).toBe(120_000);
    expect((await http(url, 'GET', '/v1/schedules/every-min')).body.schedule).toMatchObject({
      everyMs: 60_000,
      paused: true,
    });
    await http(url, 'DELETE', '/v1/schedules/every-min');
    const bad = await http(url, 'POST', '/v1/schedules/x/preview', { json: { topic: 'report', cron: 'nope' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('cron');
    const badNext = await http(url, 'POST', '/v1/schedules/x/preview?next=500', {
      json: { topic: 'r', everyMs: '1m' },
    });
    expect(badNext.body.error.field).toBe('next');
  });

  it('refuses a bad name with 400 and an unknown one with 404', async () => {
    expect((await http(url, 'PUT', '/v1/schedules/a:b', { json: { topic: 't', everyMs: 1000 } })).status).toBe(400);
    expect((await http(url, 'POST', '/v1/schedules/nope/pause')).status).toBe(404);
  });

  it('documents the routes in the OpenAPI document', async () => {
    const doc = (await http(url, 'GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v1/schedules',
        '/v1/schedules/{name}',
        '/v1/schedules/{name}/pause',
        '/v1/schedules/{name}/fires',
        '/v1/schedules/{name}/resume',
      ]),
    );
    expect(doc.paths['/v1/jobs'].post.requestBody.content['application/json'].schema.properties.timeZone).toBeDefined();
  });

  it('pushes a job at a local time in a zone, and refuses one without offset or zone', async () => {
    const ok = await http(url, 'POST', '/v1/jobs', {
      json: { topic: 'wall', runAt: '2027-12-01T10:00', timeZone: 'Asia/Shanghai' },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.job.runAt).toBe(Date.parse('2027-12-01T02:00:00Z'));
    const bad = await http(url, 'POST', '/v1/jobs', { json: { topic: 'wall', runAt: '2027-12-01T10:00' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('runAt');
  });

  it('is driven the same through the SDK', async () => {
    const client = new DelayqClient({ url });
    const created = await client.putSchedule('sdk', {
      topic: 'sdk',
      cron: '0 0 9 * * 1-5',
      timeZone: 'Europe/Berlin',
      job: { body: { hi: 1 } },
    });
    expect(created).toMatchObject({ name: 'sdk', revision: 1, timeZone: 'Europe/Berlin' });
    expect((await client.getSchedule('sdk')).cron).toBe('0 0 9 * * 1-5');
    expect((await client.listSchedules()).some((s) => s.name === 'sdk')).toBe(true);
    expect((await client.pauseSchedule('sdk')).paused).toBe(true);
    expect((await client.resumeSchedule('sdk')).paused).toBe(false);
    await client.deleteSchedule('sdk');
    const err = await client.getSchedule('sdk').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DelayqError);
    expect((err as DelayqError).code).toBe('E_NOT_FOUND');
    const bad = await client.putSchedule('sdk', { topic: 'sdk', everyMs: 0 }).catch((e: unknown) => e);
    expect((bad as DelayqError).field).toBe('everyMs');
  });
});
