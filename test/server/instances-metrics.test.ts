/**
 * Two instances on one store, scraped by a real Prometheus: the Grafana dashboard's queries answer the
 * store's true figures (jobs per state, dead letters, next due, transitions), not twice them. Store-wide
 * gauges are the same on every instance and taken once (max/min); per-instance counters add up.
 */
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parseMetrics } from '../../src/observe/metrics-text.js';
import { http } from '../helpers/http-server.js';
import { KNOWN_STATES, KNOWN_TRANSITIONS, knownTraffic, pushJob } from '../helpers/known-traffic.js';
import { startPrometheus, type Prometheus, type PromSample } from '../helpers/prometheus.js';
import { SHARED_SHAPES, shapeHarness } from '../helpers/store-shapes.js';

interface Panel {
  title: string;
  targets?: { expr: string }[];
}
const dashboard = JSON.parse(readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8')) as {
  panels: Panel[];
};
/** A panel's first query, for every topic (the dashboard's $topic variable set to All). */
const panelQuery = (title: string): string =>
  dashboard.panels.find((p) => p.title === title)!.targets![0]!.expr.replaceAll('$topic', '.*');

/** Query results as label value → value, by one label. */
const by = (label: string, samples: PromSample[]) =>
  Object.fromEntries(
    samples.map((s) => [s.labels[label]!, s.value]).sort(([a], [b]) => String(a).localeCompare(String(b))),
  );

describe.each(SHARED_SHAPES)('the dashboard over two instances on one %s store', (shape) => {
  const harness = shapeHarness(shape, 'dash');
  let prometheus: Prometheus | undefined;
  afterEach(async () => {
    await prometheus?.stop();
    await harness.close();
  });
  afterAll(() => harness.cleanup());

  it("answers the store's figures once, whichever instances are scraped", async () => {
    const instances = await harness.instances(2, { overrides: { metrics: { statsCacheMs: 0 } } });
    const urls = instances.map((i) => i.url);
    await knownTraffic(urls);
    const truth = (await http(urls[0]!, 'GET', '/v1/stats')).body.topics as {
      topic: string;
      counts: Record<string, number>;
      nextDueAt: number | null;
    }[];
    for (const t of truth) expect(t.counts).toMatchObject(KNOWN_STATES[t.topic as 'mail' | 'sms']);

    prometheus = await startPrometheus(urls);
    const scraped = async () => (await prometheus!.query('count(delayq_store_up{job="delayq"} == 1)'))[0]?.value;
    for (let i = 0; (await scraped()) !== 2; i++) {
      if (i > 300) throw new Error('Prometheus did not scrape both instances');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Both instances are in: the store-wide gauge summed over them is twice the truth.
    const naive = await prometheus.query('sum by (state) (delayq_jobs{state="delayed"})');
    expect(naive[0]!.value).toBe(2 * KNOWN_STATES.mail.delayed);

    const states = by('state', await prometheus.query(panelQuery('Jobs per state')));
    expect(states).toEqual(
      Object.fromEntries(
        (['dead', 'delayed', 'ready', 'reserved'] as const).map((s) => [s, KNOWN_STATES.mail[s] + KNOWN_STATES.sms[s]]),
      ),
    );
    expect(by('topic', await prometheus.query(panelQuery('Dead letters')))).toEqual({
      mail: KNOWN_STATES.mail.dead,
      sms: KNOWN_STATES.sms.dead,
    });
    const nextDue = await prometheus.query('min by (topic) (delayq_next_due_timestamp_seconds)');
    expect(by('topic', nextDue)).toEqual({ mail: truth.find((t) => t.topic === 'mail')!.nextDueAt! / 1000 });
    // The transitions panel rates the sum of every instance's own counts: those add up to the store's.
    expect(panelQuery('Transitions per second')).toMatch(/^sum by \(event\) \(rate\(delayq_jobs_total/);
    const transitions = by('event', await prometheus.query('sum by (event) (delayq_jobs_total)'));
    expect(transitions).toEqual({ bury: 2, finish: 2, push: 10, reserve: 5 });
    expect(transitions['push']).toBe(KNOWN_TRANSITIONS.mail.push + KNOWN_TRANSITIONS.sms.push);

    // Every query of the dashboard is one Prometheus accepts.
    for (const panel of dashboard.panels)
      for (const { expr } of panel.targets ?? []) await prometheus.query(expr.replaceAll('$topic', '.*'));
  });

  it('labels the store-wide gauges alike on every instance, past the topic label cap too', async () => {
    const instances = await harness.instances(2, { overrides: { metrics: { statsCacheMs: 0, topicLabelLimit: 2 } } });
    // Each instance meets the topics in another order (its own per-instance labels follow that order).
    for (const topic of ['zeta', 'beta', 'alpha']) await pushJob(instances[0]!.url, { topic, delayMs: 60_000 });
    for (const topic of ['alpha', 'beta', 'zeta', 'zeta']) await pushJob(instances[1]!.url, { topic, delayMs: 60_000 });
    const gauges = await Promise.all(
      instances.map(async (i) =>
        parseMetrics(await (await fetch(`${i.url}/metrics`)).text())
          .filter((s) => s.name === 'delayq_jobs' && s.labels['state'] === 'delayed')
          .map((s) => [s.labels['topic'], s.value])
          .sort(),
      ),
    );
    expect(gauges[0]).toEqual([
      ['alpha', 2],
      ['beta', 2],
      ['other', 3],
    ]);
    expect(gauges[1]).toEqual(gauges[0]);
  });
});
