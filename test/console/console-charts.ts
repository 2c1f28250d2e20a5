/**
 * The console's charts over time: known traffic spread over the nodes, then every drawn figure (each step's
 * data attributes) equal to what GET /v1/stats/series answers for the same range, on every node; the window
 * selector and its step, the overview's totals and busiest topics, the axis in the header's zone, and the
 * empty states.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Locator } from 'playwright-core';
import { expect, it } from 'vitest';
import { VIEWER_ZONE, type SuiteContext } from './console-suite.js';

/** Long enough for a page to load its figures again (every 5 s). */
const RELOADS = { timeout: 20_000 };

/** What the page drew: the range it drew over, and each chart's steps with their values (null: not drawn). */
interface Drawn {
  from: number;
  to: number;
  stepMs: number;
  elapsedMs: number;
  charts: Record<string, Record<string, number>[] | null>;
}

interface Answer {
  from: number;
  to: number;
  stepMs: number;
  elapsedMs: number;
  topics: {
    topic: string;
    total: { counts: Record<string, number> };
    steps: {
      at: number;
      counts: Record<string, number>;
      lateness: { p50Ms: number | null; p99Ms: number | null };
      backlog: Record<string, number> | null;
    }[];
  }[];
}

const readDrawn = (charts: Locator): Promise<Drawn> =>
  charts.evaluate((el) => {
    const number = (name: string) => Number(el.getAttribute(name));
    const drawn: Record<string, Record<string, number>[] | null> = {};
    for (const figure of el.querySelectorAll('figure.chart')) {
      drawn[figure.getAttribute('data-chart')!] = figure.hasAttribute('data-empty')
        ? null
        : [...figure.querySelectorAll('rect.step')].map((rect) =>
            Object.fromEntries(
              [...rect.attributes]
                .filter((a) => a.name.startsWith('data-'))
                .map((a) => [a.name.slice('data-'.length), Number(a.value)]),
            ),
          );
    }
    return {
      from: number('data-from'),
      to: number('data-to'),
      stepMs: number('data-step-ms'),
      elapsedMs: number('data-elapsed-ms'),
      charts: drawn,
    };
  });

/** Leaves out what has no value, as the page leaves out the attribute. */
const present = (values: Record<string, number | null | undefined>) =>
  Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null && v !== undefined)) as Record<string, number>;

/**
 * What the charts should show for one topic of an answer, computed here from the counts: jobs per second
 * over each step (over the part that had passed when the page read it, for the step in progress), lateness
 * in ms, the backlog sampled; a chart with no value at all is not drawn.
 */
function expected(answer: Answer, drawn: Drawn): Drawn['charts'] {
  const steps = answer.topics[0]!.steps;
  const spanMs = (at: number) => Math.min(drawn.stepMs, Math.max(0, drawn.from + drawn.elapsedMs - at));
  const rate = (at: number, n: number) => (spanMs(at) < 1000 ? null : n / (spanMs(at) / 1000));
  const orNull = (rows: Record<string, number>[]) => (rows.some((r) => Object.keys(r).length > 1) ? rows : null);
  return {
    rates: orNull(
      steps.map((s) =>
        present({
          at: s.at,
          push: rate(s.at, s.counts['push']!),
          finish: rate(s.at, s.counts['finish']!),
          fail: rate(s.at, s.counts['retry']! + s.counts['bury']!),
        }),
      ),
    ),
    lateness: orNull(steps.map((s) => present({ at: s.at, p50: s.lateness.p50Ms, p99: s.lateness.p99Ms }))),
    backlog: orNull(steps.map((s) => present({ at: s.at, ...(s.backlog ?? {}) }))),
  };
}

/** The drawn steps that had traffic, as counts (the rate times the time it is over): the same whatever the read time. */
function traffic(drawn: Drawn) {
  const spanS = (at: number) => Math.min(drawn.stepMs, drawn.from + drawn.elapsedMs - at) / 1000;
  return drawn.charts['rates']!.filter((r) => r['push'] || r['finish'] || r['fail']).map((r) => {
    const at = r['at']!;
    const count = (key: string) => Math.round((r[key] ?? 0) * spanS(at));
    const late = drawn.charts['lateness']?.find((l) => l['at'] === at) ?? {};
    const backlog = drawn.charts['backlog']?.find((b) => b['at'] === at) ?? {};
    return { at, push: count('push'), finish: count('finish'), fail: count('fail'), late, backlog };
  });
}

export function chartTests(s: SuiteContext): void {
  const page = () => s.page();
  const api = (method: string, path: string, json?: unknown, at?: number) => s.target().api(method, path, json, at);
  const topicCharts = (topic: string) => page().locator(`#over-time .charts[data-topic="${topic}"]`);

  /** Checks the page's charts against the API's answer for the range the page drew, read from node `at`. */
  const matchesApi = async (charts: Locator, topic: string, at: number) => {
    let drawn: Drawn | undefined;
    // the page and the API read at different moments: a sample or a promotion may fall between, not twice
    await expect
      .poll(async () => {
        drawn = await readDrawn(charts);
        const range = `topic=${topic}&from=${drawn.from}&to=${drawn.to}&stepMs=${drawn.stepMs}`;
        const answer = (await api('GET', `/v1/stats/series?${range}`, undefined, at)).body as Answer;
        const same = answer.from === drawn.from && expected(answer, drawn);
        return isDeepStrictEqual(drawn.charts, same) ? 'equal' : { drawn: drawn.charts, expected: same };
      }, RELOADS)
      .toBe('equal');
    return drawn!;
  };

  it('charts a topic as the series API answers it, the same on every node', async () => {
    // 40 jobs: 30 finished, 6 failed into the dead letters (one attempt), 4 failed and retried
    const jobs = Array.from({ length: 40 }, (_, i) => ({
      topic: 'charts.mail',
      id: `chart-${i}`,
      retry: { maxAttempts: i < 6 ? 1 : 3, backoff: { type: 'fixed', delayMs: '1h' } },
    }));
    expect((await api('POST', '/v1/jobs/batch', { jobs: jobs.slice(0, 20) }, 0)).status).toBe(200);
    expect((await api('POST', '/v1/jobs/batch', { jobs: jobs.slice(20) }, 1)).status).toBe(200);
    const reserved = [];
    for (let n = 0; n < 4; n++)
      reserved.push(...(await api('POST', '/v1/reserve', { topics: ['charts.mail'], count: 10 }, n)).body.reservations);
    expect(reserved).toHaveLength(40);
    for (const [n, r] of reserved.entries()) {
      const index = Number(r.job.id.split('-')[1]);
      const settle =
        index < 10
          ? api('POST', `/v1/jobs/${r.job.id}/fail`, { token: r.token, error: 'mailbox full' }, n)
          : api('POST', `/v1/jobs/${r.job.id}/finish`, { token: r.token }, n);
      expect((await settle).status).toBe(200);
    }
    // every node's counts in the store, and a backlog sample taken after the traffic (each slot has one at
    // most, so the steps of the traffic keep theirs from now on)
    const series = '/v1/stats/series?topic=charts.mail&windowMs=900000&stepMs=10000';
    await expect
      .poll(async () => {
        const { steps, total } = ((await api('GET', series)).body as Answer).topics[0]!;
        return { counts: total.counts, last: steps.findLast((step) => step.backlog !== null)?.backlog };
      }, RELOADS)
      .toMatchObject({
        counts: { push: 40, reserve: 40, finish: 30, retry: 4, bury: 6 },
        last: { delayed: 4, ready: 0, reserved: 0, dead: 6 },
      });

    // A step less than a second old has no rate drawn (too short to say): when all of this ran within the
    // first second of a 10 s step, wait until that step is old enough for its traffic to be drawn.
    const intoStep = Date.now() % 10_000;
    if (intoStep < 1_500) await new Promise((resolve) => setTimeout(resolve, 1_500 - intoStep));
    const seen = await s.onEveryNode('/topic/charts.mail?window=15m', async () => {
      const charts = topicCharts('charts.mail');
      await charts.waitFor();
      const total = page().locator('#over-time .series-total');
      expect(await total.getAttribute('data-push')).toBe('40');
      expect(await total.getAttribute('data-fail')).toBe('10');
      const drawn = await matchesApi(charts, 'charts.mail', 0);
      return { traffic: traffic(drawn), last: drawn.charts['backlog']!.findLast((b) => 'dead' in b) };
    });
    const sum = (key: 'push' | 'finish' | 'fail') => seen.traffic.reduce((n, step) => n + step[key], 0);
    expect([sum('push'), sum('finish'), sum('fail')]).toEqual([40, 30, 10]);
    expect(seen.traffic.some((step) => step.late['p99'] !== undefined)).toBe(true);
    expect(seen.last).toMatchObject({ dead: 6, delayed: 4, ready: 0, reserved: 0 });
    expect(await page().locator('#over-time figure.chart').count()).toBe(3);
  });

  it('changes the step with the window, kept in the URL', async () => {
    await s.open('/topic/charts.mail?window=15m', 1);
    const charts = topicCharts('charts.mail');
    for (const [window, stepMs, most] of [
      ['6h', 300_000, 73],
      ['24h', 300_000, 289],
      ['1h', 10_000, 361],
      ['15m', 10_000, 91],
    ] as const) {
      await page().locator(`#window-picker button[data-window="${window}"]`).click();
      await page().locator(`#over-time[data-window="${window}"] .charts[data-step-ms="${stepMs}"]`).waitFor();
      expect(page().url()).toContain(`window=${window}`);
      const drawn = await matchesApi(charts, 'charts.mail', 1);
      expect(drawn.charts['rates']!.length).toBeLessThanOrEqual(most);
      expect(drawn.to - drawn.from).toBeGreaterThanOrEqual((most - 1) * stepMs);
      const counted = traffic(drawn);
      expect(counted.reduce((n, step) => n + step.push, 0)).toBe(40);
    }
  });

  it('sums every topic on the overview and charts the busiest, the same on every node', async () => {
    // more pushes than charts.mail, fewer transitions: busiest means most transitions, not most pushes
    const many = Array.from({ length: 50 }, (_, i) => ({ topic: 'charts.many', id: `many-${i}`, delayMs: 7_200_000 }));
    expect((await api('POST', '/v1/jobs/batch', { jobs: many })).status).toBe(200);
    const totals = async () => {
      const answer = (await api('GET', '/v1/stats/series?windowMs=3600000&stepMs=3600000')).body as Answer;
      const volume = (t: Answer['topics'][number]) => Object.values(t.total.counts).reduce((a, b) => a + b, 0);
      const sum = (key: string) => answer.topics.reduce((n, t) => n + (t.total.counts[key] ?? 0), 0);
      return {
        topics: answer.topics.length,
        push: sum('push'),
        finish: sum('finish'),
        fail: sum('retry') + sum('bury'),
        reserve: sum('reserve'),
        busiest: answer.topics
          .filter((t) => volume(t) > 0)
          .sort((a, b) => volume(b) - volume(a) || (a.topic < b.topic ? -1 : 1))
          .slice(0, 5)
          .map((t) => t.topic),
      };
    };
    const shown = async () => {
      const total = page().locator('#overview-total');
      const figure = async (name: string) => Number(await total.getAttribute(`data-${name}`));
      return {
        topics: await figure('topics'),
        push: await figure('push'),
        finish: await figure('finish'),
        fail: await figure('fail'),
        reserve: await figure('reserve'),
        busiest: await page()
          .locator('#over-time .busiest')
          .evaluateAll((all) => all.map((b) => b.getAttribute('data-topic'))),
      };
    };
    const seen = await s.onEveryNode('/topics?window=1h', async () => {
      await page().locator('#over-time .busiest').first().waitFor();
      // the figures move while the timer promotes other tests' jobs: the page's latest read equals the API's
      await expect.poll(async () => isDeepStrictEqual(await shown(), await totals()), RELOADS).toBe(true);
      const mail = page().locator('#over-time .busiest[data-topic="charts.mail"] .charts');
      return traffic(await matchesApi(mail, 'charts.mail', 0));
    });
    expect(seen.reduce((n, step) => n + step.push, 0)).toBe(40);
    const { busiest } = await shown();
    expect(busiest[0]).toBe('charts.mail');
    expect(busiest).toContain('charts.many');
    // a topic's heading opens its page with the same window
    await page().locator('#over-time .busiest[data-topic="charts.mail"] h3 a').click();
    await topicCharts('charts.mail').waitFor();
    expect(page().url()).toContain('#/topic/charts.mail?window=1h');
  });

  it("draws the time axis in the header's zone", async () => {
    await s.open('/topic/charts.mail?window=1h');
    const axis = page().locator('#over-time figure[data-chart=rates]');
    await axis.locator('.tick.time').first().waitFor();
    const ticks = () =>
      axis
        .locator('.tick.time')
        .evaluateAll((all) => all.map((g) => [Number(g.getAttribute('data-at')), g.textContent]));
    const wall = (at: number, timeZone: string) =>
      new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at);
    try {
      await page().locator('select[name=zone]').selectOption('UTC');
      await axis.getByText('time (UTC)').waitFor();
      const utc = await ticks();
      expect(utc.length).toBeGreaterThanOrEqual(3);
      for (const [at, label] of utc) expect(String(label).slice(-5)).toBe(wall(at as number, 'UTC'));
      await page().locator('select[name=zone]').selectOption('local');
      await axis.getByText(`time (${VIEWER_ZONE}, UTC+08:00)`).waitFor();
      const local = await ticks();
      for (const [at, label] of local) expect(String(label).slice(-5)).toBe(wall(at as number, VIEWER_ZONE));
      expect(local.map(([, label]) => label)).not.toEqual(utc.map(([, label]) => label));
    } finally {
      await page().locator('select[name=zone]').selectOption('UTC');
    }
  });

  it('says why a chart is empty', async () => {
    await s.open('/topic/charts.never?window=15m');
    await page().locator('#over-time .series-empty').waitFor();
    expect(await page().locator('#over-time .series-empty').textContent()).toMatch(
      /^Nothing recorded for charts\.never in the last 15 min: no job of it was pushed, reserved, finished or failed/,
    );
    expect(await page().locator('#over-time figure.chart').count()).toBe(0);
    // pushed, never reserved: rates and backlog, but no lateness
    await api('POST', '/v1/jobs', { topic: 'charts.idle', id: 'idle-chart-1', delayMs: 3_600_000 });
    await s.open('/topic/charts.idle?window=15m', 1);
    const lateness = page().locator('#over-time figure[data-chart=lateness][data-empty=true]');
    await lateness.waitFor();
    expect(await lateness.textContent()).toContain(
      'No job of charts.idle was reserved in the last 15 min, so there is no lateness to show.',
    );
    expect(await page().locator('#over-time figure[data-chart=rates] rect.step[data-push]').count()).toBeGreaterThan(0);
  });
}
