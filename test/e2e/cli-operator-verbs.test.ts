/**
 * The CLI's schedule, sink, journal and batch verbs as child processes against a real node (SQLite store,
 * PostgreSQL journal, schedules, delivery bindings) with a token: tables by default, JSON with --json, and the
 * errors' exit codes and messages (docs/cli.md). The job verbs are in cli-verbs.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createRuntime, type DelayqRuntime } from '../../src/runtime.js';
import { buildApp, closeGracefully, type DelayqApp } from '../../src/server/app.js';
import { http, waitFor } from '../helpers/http-server.js';
import { PG_URL, postgresJournalDatabase, type JournalDatabase } from '../helpers/journal-databases.js';
import { bundleCli, type CliBundle } from './support/cli-bundle.js';

const TOKEN = 'cli-operator-token-0123456789';

describe('delayq CLI: schedules, sinks, journal, batch push', { timeout: 300_000 }, () => {
  let cli: CliBundle;
  let database: JournalDatabase;
  let runtime: DelayqRuntime;
  let app: DelayqApp;
  let url: string;
  const run = (...args: string[]) => cli.run(['--url', url, '--token', TOKEN, ...args]);
  const json = async (...args: string[]) => {
    const r = await run('--json', ...args);
    expect(r, r.stderr).toMatchObject({ code: 0 });
    return JSON.parse(r.stdout);
  };
  const api = (method: string, path: string, body?: unknown) =>
    http(url, method, path, { ...(body ? { json: body } : {}), headers: { authorization: `Bearer ${TOKEN}` } });

  beforeAll(async () => {
    cli = await bundleCli();
    database = await postgresJournalDatabase();
    const config = loadConfig({
      env: {},
      overrides: {
        sqlite: { path: ':memory:' },
        journal: { kind: 'postgres', url: PG_URL, schema: database.name },
        auth: { tokens: [{ token: TOKEN }] },
      },
    });
    runtime = createRuntime(config);
    await runtime.start();
    app = await buildApp(runtime.service, config, {
      sinks: runtime.sinks,
      schedules: runtime.schedules,
      metrics: runtime.metrics,
    });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  }, 60_000);
  afterAll(async () => {
    if (app) await closeGracefully(app, runtime, 100);
    await database?.drop();
    cli?.remove();
  });

  it('schedule put, list, get, fires, pause, resume, delete', async () => {
    const put = await run('schedule', 'put', 'tick', '--topic', 'ticks', '--every', '1s', '--body', '{"n":1}');
    expect(put.code, put.stderr).toBe(0);
    expect(put.stdout).toMatch(/^name\s+tick$/m);
    expect(put.stdout).toMatch(/^ticks\s+every 1000 ms$/m);
    const list = await run('schedule', 'list');
    expect(list.stdout).toMatch(/^NAME\s+TOPIC\s+TICKS/);
    expect(list.stdout).toMatch(/^tick\s+ticks\s+every 1000 ms\s+UTC\s+false/m);
    expect((await json('schedule', 'get', 'tick')).schedule).toMatchObject({ name: 'tick', everyMs: 1000 });
    await waitFor(async () => (await json('schedule', 'get', 'tick')).schedule.fired >= 2, 'two fires', 10_000);
    const fires = await json('schedule', 'fires', 'tick', '--next', '3', '--last', '2');
    expect(fires.next).toHaveLength(3);
    expect(fires.last).toHaveLength(2);
    expect(fires.last[0].job).toMatchObject({ topic: 'ticks', body: { n: 1 } });
    const firesText = await run('schedule', 'fires', 'tick');
    expect(firesText.stdout).toMatch(/^next fires:\nAT\n/);
    expect(firesText.stdout).toMatch(
      /^last fires:\nTICKAT\s+JOBID\s+STATE\s+ATTEMPTS\n\S+Z\s+tick~\d{13}\s+(delayed|ready)\s+0$/m,
    );
    expect((await run('schedule', 'pause', 'tick')).stdout).toMatch(/^paused\s+true$/m);
    expect((await json('schedule', 'resume', 'tick')).schedule.paused).toBe(false);
    expect((await run('schedule', 'delete', 'tick')).stdout).toBe('deleted tick\n');
    // errors: the field named, exit code by class
    const badCron = await run('schedule', 'put', 'bad', '--topic', 't', '--cron', '61 * * * * *');
    expect(badCron).toMatchObject({ code: 3, stdout: '' });
    expect(badCron.stderr).toMatch(/^delayq: E_VALIDATION: .*cron/);
    const gone = await run('schedule', 'get', 'tick');
    expect(gone.code).toBe(4);
    expect(gone.stderr).toContain('delayq: E_NOT_FOUND: schedule tick does not exist');
    const notInt = await run('schedule', 'put', 'x', '--topic', 't', '--every', '1s', '--max-fires', 'many');
    expect(notInt.code).toBe(2);
    expect(notInt.stderr).toContain('--max-fires');
    expect((await run('schedule', 'put', 'x', '--every', '1s')).code).toBe(2); // --topic is required
  });

  it('sink set, get, list, delete', async () => {
    const config = JSON.stringify({ type: 'webhook', url: 'https://hooks.example.com/delayq' });
    expect((await run('sink', 'set', 'hooked', config)).stdout).toBe('bound hooked to webhook\n');
    expect((await run('sink', 'get', 'hooked')).stdout).toMatch(/^type\s+webhook$/m);
    const list = await run('sink', 'list');
    expect(list.stdout).toMatch(/^TOPIC\s+TYPE\s+UPDATEDAT\nhooked\s+webhook\s+\d{4}-/);
    expect((await json('sink', 'list')).bindings.map((b: { topic: string }) => b.topic)).toEqual(['hooked']);
    expect((await run('sink', 'delete', 'hooked')).stdout).toBe('deleted the binding of hooked\n');
    const pull = await run('sink', 'get', 'hooked');
    expect(pull.code).toBe(4);
    expect(pull.stderr).toContain('E_NOT_FOUND');
    const notJson = await run('sink', 'set', 'hooked', '{type: webhook}');
    expect(notJson.code).toBe(3);
    expect(notJson.stderr).toContain('delayq: E_VALIDATION: sink: not JSON');
    const unknown = await run('sink', 'set', 'hooked', '{"type":"carrier-pigeon"}');
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('E_VALIDATION');
  });

  it('push-batch from stdin, all or none', async () => {
    const jobs = [
      { topic: 'batch', id: 'b-1', delayMs: 60_000 },
      { topic: 'batch', id: 'b-2', body: { x: 1 } },
    ];
    const pushed = await cli.run(['--url', url, '--token', TOKEN, 'push-batch', '-'], JSON.stringify(jobs));
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stdout).toMatch(
      /^ID\s+TOPIC\s+STATE\s+CREATED\nb-1\s+batch\s+delayed\s+true\nb-2\s+batch\s+ready\s+true\n$/,
    );
    const bad = await cli.run(
      ['--url', url, '--token', TOKEN, 'push-batch', '-'],
      JSON.stringify([{ topic: 'batch', id: 'b-3' }, { topic: 'no spaces' }]),
    );
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('jobs[1]');
    expect((await api('GET', '/v1/jobs/b-3')).status).toBe(404);
    const notArray = await cli.run(['--url', url, '--token', TOKEN, 'push-batch', '-'], '{"topic":"batch"}');
    expect(notArray.code).toBe(3);
    expect(notArray.stderr).toContain('file: must hold a JSON array');
  });

  it('journal, restore, clear-all', async () => {
    expect((await run('journal')).stdout).toMatch(/^restoreMode\s+auto$/m);
    await api('POST', '/v1/jobs', { topic: 'kept', id: 'k-1', delayMs: 60_000 });
    const one = await json('restore', 'k-1');
    expect(one).toMatchObject({ scanned: 1, restored: 0, alreadyPresent: 1 });
    expect((await run('restore')).stdout).toMatch(/^restored\s+0$/m);
    const refused = await run('clear-all', '--confirm', 'yes');
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('E_VALIDATION');
    expect((await run('clear-all')).code).toBe(2); // --confirm is required
    const cleared = await run('clear-all', '--confirm', 'clear-all', '--reason', 'cli test');
    expect(cleared.stdout).toMatch(/^cancelled: [1-9]\d*\n$/);
    expect((await api('GET', '/v1/jobs/k-1')).body.job.state).toBe('cancelled');
    const missing = await run('restore', 'no-such-job');
    expect(missing.code).toBe(4);
  });
});
