/** /metrics after known traffic: counters per verb and topic, the per-state gauge, a lateness histogram. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createRuntime, type DelayqRuntime } from '../../src/runtime.js';
import { buildApp, type DelayqApp } from '../../src/server/app.js';
import { http, waitFor } from '../helpers/http-server.js';

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name + '{') && !line.startsWith(name + ' ')) continue;
    const body = line.slice(name.length, line.lastIndexOf(' '));
    if (Object.entries(labels).every(([k, v]) => body.includes(`${k}="${v}"`)))
      return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('/metrics', () => {
  let runtime: DelayqRuntime;
  let app: DelayqApp;
  let url: string;

  beforeAll(async () => {
    const config = loadConfig({
      env: {},
      overrides: { sqlite: { path: ':memory:' }, metrics: { topicLabelLimit: 3, statsCacheMs: 0 } },
    });
    runtime = createRuntime(config);
    await runtime.start();
    app = await buildApp(runtime.service, config, { metrics: runtime.metrics, sinks: runtime.sinks });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app.close();
    await runtime.close();
  });

  it('counts transitions per verb and topic, gauges states, and observes lateness', async () => {
    const push = (body: object) => http(url, 'POST', '/v1/jobs', { json: body });
    for (let i = 0; i < 3; i++) expect((await push({ topic: 'mail', delayMs: 50 })).status).toBe(201);
    expect((await push({ topic: 'mail', delayMs: 3_600_000, id: 'later' })).status).toBe(201);
    const reserved: { job: { id: string }; token: string }[] = [];
    await waitFor(async () => {
      const r = await http(url, 'POST', '/v1/reserve', { json: { topics: ['mail'], count: 3, waitMs: 1000 } });
      reserved.push(...(r.body.reservations ?? r.body.jobs ?? []));
      return reserved.length >= 3;
    }, 'three due jobs reserved');
    for (const r of reserved.slice(0, 2))
      expect((await http(url, 'POST', `/v1/jobs/${r.job.id}/finish`, { json: { token: r.token } })).status).toBe(200);
    expect((await http(url, 'POST', '/v1/jobs/later/cancel', { json: {} })).status).toBe(200);
    // Four more topics than the label cap allows: the fourth distinct topic onwards is `other`.
    for (const topic of ['t2', 't3', 't4', 't5']) await push({ topic, delayMs: 60_000 });

    const scrape = await fetch(`${url}/metrics`);
    const text = await scrape.text();
    expect(scrape.headers.get('content-type')).toContain('text/plain');
    expect(sample(text, 'delayq_jobs_total', { event: 'push', topic: 'mail' })).toBe(4);
    expect(sample(text, 'delayq_jobs_total', { event: 'reserve', topic: 'mail' })).toBe(3);
    expect(sample(text, 'delayq_jobs_total', { event: 'finish', topic: 'mail' })).toBe(2);
    expect(sample(text, 'delayq_jobs_total', { event: 'cancel', topic: 'mail' })).toBe(1);
    expect(sample(text, 'delayq_jobs_total', { event: 'push', topic: 'other' })).toBe(2);
    expect(sample(text, 'delayq_jobs', { state: 'finished', topic: 'mail' })).toBe(2);
    expect(sample(text, 'delayq_jobs', { state: 'reserved', topic: 'mail' })).toBe(1);
    expect(sample(text, 'delayq_jobs', { state: 'delayed', topic: 'other' })).toBe(2);
    expect(sample(text, 'delayq_delivery_lateness_seconds_count', { topic: 'mail' })).toBe(3);
    expect(sample(text, 'delayq_promote_lateness_seconds_count', { topic: 'mail' })).toBe(3);
    expect(sample(text, 'delayq_delivery_lateness_seconds_bucket', { topic: 'mail', le: '3600' })).toBe(3);
    expect(sample(text, 'delayq_next_due_timestamp_seconds', { topic: 't2' })).toBeGreaterThan(Date.now() / 1000);
    expect(
      sample(text, 'delayq_store_call_seconds_count', { operation: 'pushMany', outcome: 'ok' }),
    ).toBeGreaterThanOrEqual(8);
    expect(sample(text, 'delayq_reserve_wait_seconds_count', { outcome: 'jobs' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'delayq_store_up')).toBe(1);
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(text).toContain('nodejs_gc_duration_seconds');
  });
});
