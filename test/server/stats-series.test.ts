/**
 * GET /v1/stats/series in every shape: the figures are the store's, not one instance's (two instances on one
 * Redis answer the same counts, none doubled), and the lateness covers the window asked for, not the
 * process's life (a start-up backlog leaves the last five minutes once they have passed).
 */
import { isDeepStrictEqual } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parseMetrics, quantileByTopic } from '../../src/observe/metrics-text.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { http, waitFor } from '../helpers/http-server.js';
import {
  finishJob,
  KNOWN_STATES,
  KNOWN_TRANSITIONS,
  knownTraffic,
  pushJob,
  reserveJobs,
} from '../helpers/known-traffic.js';
import { STORE_SHAPES, shapeHarness } from '../helpers/store-shapes.js';

const MINUTE = 60_000;

interface Figures {
  counts: Record<string, number>;
  lateness: { count: number; p50Ms: number | null; p99Ms: number | null };
}
interface TopicSeries {
  topic: string;
  total: Figures;
  steps: (Figures & { at: number; backlog: Record<string, number> | null })[];
}

const series = async (url: string, query: string, headers: Record<string, string> = {}) =>
  http(url, 'GET', `/v1/stats/series?${query}`, { headers });

const totals = (topics: TopicSeries[]) =>
  Object.fromEntries(
    topics.map((t) => [t.topic, Object.fromEntries(Object.entries(t.total.counts).filter(([, n]) => n > 0))]),
  );

describe.each(STORE_SHAPES)('store-wide figures over time on %s', (shape) => {
  const harness = shapeHarness(shape, 'series');
  const shared = shape !== 'embedded';
  afterEach(() => harness.close());
  afterAll(() => harness.cleanup());

  it('any instance answers the store-wide counts, none doubled, lateness and backlog included', async () => {
    const instances = await harness.instances(shared ? 2 : 1);
    await knownTraffic(instances.map((i) => i.url));
    const from = Date.now() - 5 * MINUTE;
    const query = `from=${from}&to=${from + 10 * MINUTE}&stepMs=60000`;
    // Each instance writes its counts within a second; a read writes its own at once.
    const answers: { body: { topics: TopicSeries[] } }[] = [];
    await waitFor(
      async () => {
        answers.splice(0, answers.length, ...(await Promise.all(instances.map((i) => series(i.url, query)))));
        return answers.every((a) => isDeepStrictEqual(totals(a.body.topics), KNOWN_TRANSITIONS));
      },
      'every instance answering the whole store',
      // a second normally; more on a loaded host, where this suite runs beside others
      15_000,
    );
    for (const answer of answers) {
      const byTopic = new Map(answer.body.topics.map((t) => [t.topic, t]));
      expect(byTopic.get('mail')!.total.lateness.count).toBe(3);
      expect(byTopic.get('sms')!.total.lateness.count).toBe(2);
      expect(byTopic.get('mail')!.total.lateness.p99Ms).toBeLessThan(60_000);
      // The steps add up to the total.
      const pushed = byTopic.get('mail')!.steps.reduce((sum, s) => sum + s.counts['push']!, 0);
      expect(pushed).toBe(8);
    }
    // Each instance's own /metrics counts only its share: what the console showed per instance before.
    if (shared) {
      const own = await fetch(`${instances[0]!.url}/metrics`).then((r) => r.text());
      const pushedHere = parseMetrics(own).find(
        (s) => s.name === 'delayq_jobs_total' && s.labels['event'] === 'push' && s.labels['topic'] === 'mail',
      )!.value;
      expect(pushedHere).toBeLessThan(8);
    }

    // The backlog: one instance per slot samples it, and every instance reads the same.
    await Promise.all(instances.map((i) => i.runtime.service.series.sample()));
    const sampled = await Promise.all(instances.map((i) => series(i.url, query)));
    for (const answer of sampled) {
      const mail = answer.body.topics.find((t: TopicSeries) => t.topic === 'mail') as TopicSeries;
      const last = mail.steps.filter((s) => s.backlog !== null).at(-1);
      const { delayed, ready, reserved, dead } = KNOWN_STATES.mail;
      expect(last?.backlog).toEqual({ delayed, ready, reserved, dead });
    }
    expect(sampled[0]!.body.topics).toEqual(sampled.at(-1)!.body.topics);
  });

  it('one instance per slot wins the backlog sample', async () => {
    const instances = await harness.instances(shared ? 2 : 1);
    const at = Date.now() - 30 * MINUTE;
    const claims = await Promise.all(instances.map((i) => i.runtime.service.store.series.claimBacklogSample(at)));
    expect(claims.filter(Boolean)).toHaveLength(1);
  });

  it("lateness p99 covers the recent window: a start-up backlog leaves it, while the process's histogram keeps it", async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const instances = await harness.instances(shared ? 2 : 1, { clock });
    const [a, b] = [instances[0]!, instances.at(-1)!];
    // A backlog that waited ten minutes for its consumers.
    for (let i = 0; i < 20; i++) await pushJob(a.url, { topic: 'mail' });
    clock.advance(10 * MINUTE);
    for (const r of await reserveJobs(b.url, ['mail'], 20)) await finishJob(b.url, r);
    // Six minutes later, jobs are reserved as soon as they are due.
    clock.advance(6 * MINUTE);
    for (let i = 0; i < 5; i++) await pushJob(a.url, { topic: 'mail' });
    expect(await reserveJobs(b.url, ['mail'], 5)).toHaveLength(5);

    const read = async (url: string, query: string) =>
      ((await series(url, query)).body.topics as TopicSeries[]).find((t) => t.topic === 'mail')!.total;
    await waitFor(async () => (await read(a.url, 'windowMs=3600000')).lateness.count === 25, 'all 25 counted', 5000);
    for (const { url } of instances) {
      const recent = await read(url, 'windowMs=300000&stepMs=60000');
      expect(recent.lateness.count).toBe(5);
      expect(recent.lateness.p99Ms).toBeLessThanOrEqual(1);
      expect(recent.counts['reserve']).toBe(5);
      const hour = await read(url, 'windowMs=3600000');
      expect(hour.lateness.count).toBe(25);
      expect(hour.lateness.p99Ms).toBeGreaterThanOrEqual(5 * MINUTE);
    }
    // The process-lifetime histogram on /metrics (what the console read before) still says ten minutes.
    const lifetime = quantileByTopic(
      parseMetrics(await fetch(`${b.url}/metrics`).then((r) => r.text())),
      'delayq_delivery_lateness_seconds',
      0.99,
    );
    expect(lifetime.get('mail')).toBeGreaterThan(300);
  });

  it('refuses bad input with 400 naming the field, and shows a topic-limited token only its topics', async () => {
    const tokens = [{ token: 'series-admin-token-0001' }, { token: 'series-mail-token-0001', topics: ['mail'] }];
    const [i] = await harness.instances(1, { overrides: { auth: { tokens } } });
    const admin = { authorization: `Bearer ${tokens[0]!.token}` };
    const mailOnly = { authorization: `Bearer ${tokens[1]!.token}` };
    for (const topic of ['mail', 'mail.eu', 'sms'])
      await http(i!.url, 'POST', '/v1/jobs', { json: { topic }, headers: admin });

    const bad: [string, string][] = [
      ['stepMs=15000', 'stepMs'],
      ['stepMs=abc', 'stepMs'],
      [`from=${Date.now() - 26 * 60 * MINUTE}&stepMs=300000`, 'from'],
      [`from=${Date.now() - 3 * 60 * MINUTE}&stepMs=60000`, 'from'],
      ['windowMs=180000000', 'windowMs'],
      [`from=${Date.now() - MINUTE}&windowMs=60000`, 'windowMs'],
      [`from=${Date.now()}&to=${Date.now() - MINUTE}`, 'to'],
      [`from=${Date.now() - 60 * MINUTE}&to=${Date.now() + 600 * MINUTE}&stepMs=10000`, 'stepMs'],
      ['topic=no%20spaces', 'topic'],
      ['bogus=1', 'bogus'],
    ];
    for (const [query, field] of bad) {
      const r = await series(i!.url, query, admin);
      expect([r.status, r.body.error?.code, r.body.error?.field], query).toEqual([400, 'E_VALIDATION', field]);
    }

    const topicsOf = async (headers: Record<string, string>, query = 'windowMs=300000') =>
      ((await series(i!.url, query, headers)).body.topics as TopicSeries[]).map((t) => t.topic);
    expect(await topicsOf(admin)).toEqual(['mail', 'mail.eu', 'sms']);
    expect(await topicsOf(mailOnly)).toEqual(['mail', 'mail.eu']);
    expect(await topicsOf(mailOnly, 'windowMs=300000&topic=mail')).toEqual(['mail']);
    const forbidden = await series(i!.url, 'topic=sms', mailOnly);
    expect([forbidden.status, forbidden.body.error.field]).toEqual([403, 'topic']);
  });
});
