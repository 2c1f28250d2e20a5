/**
 * The console's views, read: log in, the topic overview (paged, sorted, filtered, kept in the URL), a topic,
 * what is running now (reservations and consumers), job search by page, due times, dead letters.
 */
import { expect, it } from 'vitest';
import { TOKEN } from './console-targets.js';
import type { SuiteContext } from './console-suite.js';

const MINUTE = 60_000;

export function viewTests(s: SuiteContext): void {
  const page = () => s.page();
  const api = (method: string, path: string, json?: unknown, at?: number) => s.target().api(method, path, json, at);
  const rows = (table: string, attr: string) =>
    page()
      .locator(`#${table} tbody tr`)
      .evaluateAll((trs, a) => trs.map((tr) => tr.getAttribute(a)), attr);
  /** Makes `n` dead jobs in `topic` (one attempt each, failed). */
  const killJobs = async (topic: string, n: number) => {
    for (let i = 0; i < n; i++) {
      await api('POST', '/v1/jobs', { topic, id: `${topic}-dead-${i}`, retry: { maxAttempts: 1 } });
      const { reservations } = (await api('POST', '/v1/reserve', { topics: [topic] })).body;
      await api('POST', `/v1/jobs/${reservations[0].job.id}/fail`, {
        token: reservations[0].token,
        error: 'card declined',
      });
    }
  };

  it('asks for a token after logging out, refuses a wrong one, then shows the topics', async () => {
    await api('POST', '/v1/jobs', {
      topic: 'orders',
      id: 'order-42-close',
      bizKey: 'order-42',
      delayMs: 10 * MINUTE,
      body: { order: 42 },
    });
    await s.open('/topics');
    await page().getByRole('button', { name: 'Log out' }).click();
    await page().locator('input[name=token]').fill('wrong-token-0000000000');
    await page().locator('button[type=submit]').click();
    await page().getByText('That token was refused.').waitFor();
    await page().locator('input[name=token]').fill(TOKEN);
    await page().locator('button[type=submit]').click();
    const row = page().locator('#topics tr[data-topic=orders]');
    await row.waitFor();
    expect(await row.locator('td[data-state=delayed]').textContent()).toBe('1');
  });

  it('pages, sorts and filters the topics, keeping the view in the URL, the same on every node', async () => {
    const jobs = [];
    for (let i = 1; i <= 25; i++)
      for (let n = 0; n < i; n++) jobs.push({ topic: `ov.t${String(i).padStart(2, '0')}`, delayMs: 20 * MINUTE });
    expect((await api('POST', '/v1/jobs/batch', { jobs })).status).toBe(200);
    await killJobs('ov.t07', 2);

    const firstPage = await s.onEveryNode('/topics?contains=ov.&limit=20', async () => {
      await page().locator('#topics tbody tr').nth(19).waitFor();
      return { topics: await rows('topics', 'data-topic'), info: await page().locator('#page-info').textContent() };
    });
    expect(firstPage.topics).toHaveLength(20);
    expect(firstPage.topics[0]).toBe('ov.t01');
    expect(firstPage.info).toBe('20 shown of 25');
    await page().locator('#next-page').click();
    await page().locator('#page-info').getByText('5 shown of 25').waitFor();
    expect(await rows('topics', 'data-topic')).toEqual(['ov.t21', 'ov.t22', 'ov.t23', 'ov.t24', 'ov.t25']);
    expect(page().url()).toContain('cursor=');
    const secondPage = page().url().split('#')[1]!;
    // the link opens the same page on every node
    const again = await s.onEveryNode(secondPage, async () => {
      await page().locator('#page-info').getByText('5 shown of 25').waitFor();
      return rows('topics', 'data-topic');
    });
    expect(again).toEqual(['ov.t21', 'ov.t22', 'ov.t23', 'ov.t24', 'ov.t25']);

    // sort by delayed (largest first), then by topic again
    await s.open('/topics?contains=ov.&limit=20');
    await page().locator('#topics th[data-sort=delayed]').click();
    await page().locator('#topics tbody tr').first().and(page().locator('[data-topic="ov.t25"]')).waitFor();
    expect(page().url()).toContain('sort=delayed');
    const delayed = await page().locator('#topics tbody tr td[data-state=delayed]').allTextContents();
    expect(delayed.slice(0, 3)).toEqual(['25', '24', '23']);
    await page().locator('#topics th[data-sort=delayed]').click(); // again: smallest first
    await page().locator('#topics tbody tr').first().and(page().locator('[data-topic="ov.t01"]')).waitFor();
    expect(page().url()).toContain('order=asc');

    // filter by a state with jobs
    await page().locator('select[name=has]').selectOption('dead');
    await page().getByRole('button', { name: 'Filter' }).click();
    await page().locator('#page-info').getByText('1 shown of 1').waitFor();
    expect(await rows('topics', 'data-topic')).toEqual(['ov.t07']);
    expect(await page().locator('#topics tr[data-topic="ov.t07"] td[data-state=dead]').textContent()).toBe('2');
  });

  it('shows a topic with its counts and pauses it after a confirmation', async () => {
    await s.open('/topic/ov.t03', 1);
    await page().locator('#topic-counts td[data-state=delayed]').getByText('3').waitFor();
    await page().getByRole('button', { name: 'Pause', exact: true }).click();
    await s.confirm('Pause ov.t03?');
    await page().locator('#topic-paused').waitFor();
    // every node honours it (another within its pause refresh)
    for (let at = 0; at < s.target().urls.length; at++)
      await expect
        .poll(async () => (await api('GET', '/v1/topics/ov.t03/stats', undefined, at)).body.paused)
        .toBe(true);
    await page().getByRole('button', { name: 'Resume' }).click();
    await page().locator('#topic-paused').waitFor({ state: 'detached' });
    for (let at = 0; at < s.target().urls.length; at++)
      await expect
        .poll(async () => (await api('GET', '/v1/topics/ov.t03/stats', undefined, at)).body.paused)
        .toBe(false);
  });

  it('shows what is running now: reservations with their node and deadline, and who waits on which topics', async () => {
    await api('POST', '/v1/jobs', { topic: 'run.now', id: 'run-1' });
    await api('POST', '/v1/jobs', { topic: 'run.now', id: 'run-2' });
    const reserved = await api('POST', '/v1/reserve', { topics: ['run.now'], count: 2, ttrMs: 600_000 });
    expect(reserved.body.reservations).toHaveLength(2);
    const holder = s.target().runtimes[0]!.service.nodeId;
    const waiting = api('POST', '/v1/reserve', { topics: ['run.idle'], waitMs: 30_000 }); // on node 0
    const seen = await s.onEveryNode('/running', async () => {
      await page().locator('#reserved tr[data-id=run-2]').waitFor();
      await page().locator('#consumers tr[data-kind=long-poll]').waitFor({ timeout: 10_000 });
      return {
        reserved: (await rows('reserved', 'data-id')).sort(),
        nodes: await page().locator('#reserved td[data-field=node]').allTextContents(),
        // every cell but "since", whose "… ago" moves on between the two reads
        consumer: (await page().locator('#consumers tr[data-kind=long-poll] td').allTextContents()).filter(
          (_, i) => i !== 4,
        ),
      };
    });
    expect(seen.reserved).toEqual(['run-1', 'run-2']);
    expect(seen.nodes).toEqual([holder, holder]);
    expect(seen.consumer.slice(0, 3)).toEqual(['long-poll', 'run.idle', holder]);
    expect(seen.consumer[3]).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(await page().locator('#reserved tr[data-id=run-1] td[data-field=deadline]').textContent()).toMatch(
      /in (9|10) min/,
    );
    await api('POST', '/v1/jobs', { topic: 'run.idle', id: 'idle-1' });
    expect((await waiting).body.reservations[0].job.id).toBe('idle-1');
    await page().locator('#consumers tr[data-kind=long-poll]').waitFor({ state: 'detached', timeout: 10_000 });
  });

  it('finds jobs by bizKey and pages a long list by cursor, the page kept in the URL', async () => {
    const jobs = Array.from({ length: 25 }, (_, i) => ({
      topic: 'paged',
      id: `paged-${String(i).padStart(2, '0')}`,
      tag: 'page-me',
      delayMs: MINUTE,
    }));
    await api('POST', '/v1/jobs/batch', { jobs });
    await api('POST', '/v1/jobs', {
      topic: 'search',
      id: 'order-search-close',
      bizKey: 'order-search',
      delayMs: MINUTE,
    });
    await s.open('/jobs');
    await page().locator('input[name=bizKey]').fill('order-search');
    await page().locator('form button[type=submit]').click();
    await page().locator('#jobs tr[data-id="order-search-close"]').waitFor();
    expect(page().url()).toContain('bizKey=order-search');
    expect(await rows('jobs', 'data-id')).toEqual(['order-search-close']);
    await s.open('/jobs?tag=page-me&limit=20', 1);
    await page().locator('#jobs tbody tr').nth(19).waitFor();
    expect((await rows('jobs', 'data-id'))[0]).toBe('paged-00');
    await page().locator('#next-page').click();
    await page().locator('#page-info').getByText('5 shown (a later page)').waitFor();
    expect(await rows('jobs', 'data-id')).toEqual(['paged-20', 'paged-21', 'paged-22', 'paged-23', 'paged-24']);
    await page().reload();
    await page().locator('#jobs tr[data-id="paged-24"]').waitFor();
    expect(await page().locator('#jobs tbody tr').count()).toBe(5);
  });

  it('draws the due-time histogram of a topic, and of every topic once the filter is cleared', async () => {
    const minute = Math.floor(Date.now() / MINUTE) * MINUTE;
    for (const [i, s2] of [150, 156, 162, 1830].entries())
      expect(
        (await api('POST', '/v1/jobs', { topic: 'reminders', id: `r${i}`, runAt: minute + s2 * 1000 })).status,
      ).toBe(201);
    await s.open('/due?topic=reminders');
    await page().locator('#due-total').getByText('of reminders').waitFor();
    expect(await page().locator('#due-total strong').textContent()).toBe('4');
    const bar = (start: number) => page().locator(`#histogram .bar[data-at="${start}"]`);
    expect(await bar(minute + 2 * MINUTE).getAttribute('data-count')).toBe('3');
    expect(await bar(minute + 30 * MINUTE).getAttribute('data-count')).toBe('1');
    await page().locator('button[data-range=day]').click();
    await page().locator('#due-total').getByText('next day').waitFor();
    expect(await page().locator('#histogram .bar').count()).toBe(24);
    // the filter cleared: every topic's delayed jobs, not the previous topic's
    const all = (await api('GET', `/v1/stats/due?from=${minute}&to=${minute + 3_600_000}`)).body.total as number;
    expect(all).toBeGreaterThan(4);
    await page().locator('button[data-range=hour]').click();
    await page().locator('#due-total').getByText('next hour').waitFor();
    await page().locator('input[name=topic]').fill('');
    await page().getByRole('button', { name: 'Show' }).click();
    await page().locator('#due-total').getByText('of reminders').waitFor({ state: 'detached' });
    expect(Number(await page().locator('#due-total strong').textContent())).toBe(all);
    await s.open('/due?topic=reminders');
    await page().locator('#due-total').getByText('of reminders').waitFor();
    await page().locator('header nav a', { hasText: 'Due times' }).click();
    await page().locator('#due-total').getByText('of reminders').waitFor({ state: 'detached' });
    expect(Number(await page().locator('#due-total strong').textContent())).toBe(all);
  });

  it('lists dead letters and redrives one, then all, each after a confirmation', async () => {
    await killJobs('payments', 3);
    await s.open('/dead?topic=payments', 1);
    const row = page().locator('#dead tr[data-id="payments-dead-0"]');
    await row.waitFor();
    expect(await row.textContent()).toContain('card declined');
    await row.getByRole('button', { name: 'Redrive' }).click();
    await page().locator('#confirm').getByRole('button', { name: 'Keep as is' }).click();
    expect((await api('GET', '/v1/jobs/payments-dead-0')).body.job.state).toBe('dead');
    await row.getByRole('button', { name: 'Redrive' }).click();
    await s.confirm('Redrive payments-dead-0?');
    await page().getByText('redriven: 1').waitFor();
    expect((await api('GET', '/v1/jobs/payments-dead-0')).body.job.state).toBe('ready');
    await page().getByRole('button', { name: 'Redrive all of payments' }).click();
    await s.confirm('Redrive the 2 dead jobs of payments?');
    await page().getByText('redriven: 2').waitFor();
    expect((await api('GET', '/v1/topics/payments/stats')).body.counts.dead).toBe(0);
  });
}
