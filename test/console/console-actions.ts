/**
 * The console's actions, each confirmed and checked through the API: a job in full (fields, outcome, zones)
 * with cancel and reschedule, acting on many with a dry run and progress, schedules created, previewed with
 * their DST change, edited, paused and deleted, sink bindings created, tested and deleted, and a topic's dispatch
 * rate limit and group concurrency set and removed.
 */
import { expect, it } from 'vitest';
import { HttpReceiver } from '../delivery/support/http-receiver.js';
import { waitFor } from '../helpers/http-server.js';
import { VIEWER_ZONE, type SuiteContext } from './console-suite.js';

const MINUTE = 60_000;
const DAY = 86_400_000;

/** 00:00 UTC of the Sunday the next spring DST change happens in Europe (the last Sunday of March). */
function nextEuropeanSpringChange(): number {
  const now = new Date();
  const year = now.getUTCFullYear() + (now.getUTCMonth() >= 2 ? 1 : 0);
  const lastOfMarch = Date.UTC(year, 2, 31);
  return lastOfMarch - new Date(lastOfMarch).getUTCDay() * DAY;
}

export function actionTests(s: SuiteContext): void {
  const page = () => s.page();
  const api = (method: string, path: string, json?: unknown, at?: number) => s.target().api(method, path, json, at);
  const field = (name: string) => page().locator(`#job-fields dd[data-field=${name}]`).textContent();

  it('shows a job in full: priority, TTR, ttl, retry policy and next retry, times in UTC and the viewer zone', async () => {
    await api('POST', '/v1/jobs', {
      topic: 'full',
      id: 'full-1',
      bizKey: 'order-9',
      priority: 5,
      ttrMs: '20s',
      ttlMs: '1h',
      retry: { maxAttempts: 3, backoff: { type: 'exponential', delayMs: '30s', factor: 2, maxDelayMs: '10m' } },
      body: { order: 9 },
    });
    const [r] = (await api('POST', '/v1/reserve', { topics: ['full'] })).body.reservations;
    await api('POST', '/v1/jobs/full-1/fail', { token: r.token, error: { message: 'psp down', code: 'PSP' } });
    const fields = await s.onEveryNode('/job/full-1', async () => {
      await page().locator('#job-state').getByText('delayed').waitFor();
      return {
        priority: await field('priority'),
        ttr: await field('ttr'),
        ttl: await field('ttl'),
        retry: await field('retry'),
        attempts: await field('attempts'),
        next: await field('next-retry'),
      };
    });
    expect(fields).toMatchObject({ priority: '5', ttr: '20.0 s per attempt', attempts: '1' });
    expect(fields.ttl).toMatch(/^60 min: expires at .* UTC if not reserved by then$/);
    expect(fields.retry).toBe('at most 3 attempts; backoff exponential from 30.0 s, ×2, at most 10 min');
    expect(fields.next).toBe('attempt 2 of 3 is due at its due time (a retry after 1 failed)');
    const due = (await field('due'))!;
    expect(due).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d Asia\/Shanghai \(\+08:00\)/,
    );
    expect(VIEWER_ZONE).toBe('Asia/Shanghai');
    expect(await page().locator('#outcome-error').textContent()).toContain('psp down');
    // a reserved job: what a failure would do next, and its TTR deadline
    await api('POST', '/v1/jobs/full-1/reschedule', { delayMs: 0 }); // its retry, now
    const [again] = (await api('POST', '/v1/reserve', { topics: ['full'], waitMs: 5000, ttrMs: 60_000 })).body
      .reservations;
    await s.open('/job/full-1', 1);
    await page().locator('#job-state').getByText('reserved').waitFor();
    expect(await field('next-retry')).toBe('if attempt 2 fails: attempt 3 of 3, 60.0 s after the failure');
    expect(await field('deadline')).toContain('UTC');
    // a finished job's result
    await api('POST', '/v1/jobs/full-1/finish', { token: again.token, result: { refunded: true } });
    await s.open('/job/full-1');
    await page().locator('#job-state').getByText('finished').waitFor();
    expect(JSON.parse((await page().locator('#outcome-result').textContent())!)).toEqual({ refunded: true });
    // without a SQL journal there is no restore to offer
    expect(await page().getByRole('button', { name: 'Restore from journal' }).count()).toBe(0);
  });

  it('shows the dedup key a job was pushed with, and until when it answers pushes with it', async () => {
    await api('POST', '/v1/jobs', { topic: 'dedup', id: 'dd-1', dedupKey: 'order-5', dedupWindowMs: '1h' });
    const again = await api('POST', '/v1/jobs', {
      topic: 'dedup',
      id: 'dd-2',
      dedupKey: 'order-5',
      dedupWindowMs: '1h',
    });
    expect(again.body.outcome).toBe('duplicate');
    await s.open('/job/dd-1');
    await page().locator('#job-state').getByText('ready').waitFor();
    expect(await field('dedup')).toMatch(/^order-5: pushes of the topic with it until .+ \(60 min\) answer this job$/);
    await api('POST', '/v1/jobs', { topic: 'dedup', id: 'dd-plain' });
    await s.open('/job/dd-plain');
    await page().locator('#job-state').getByText('ready').waitFor();
    expect(await page().locator('#job-fields dd[data-field=dedup]').count()).toBe(0);
  });

  it('cancels a job only once confirmed, and the message does not follow to the next job opened', async () => {
    await api('POST', '/v1/jobs', { topic: 'cancels', id: 'cancel-a', delayMs: 10 * MINUTE });
    await api('POST', '/v1/jobs', { topic: 'cancels', id: 'cancel-b', delayMs: 10 * MINUTE });
    await s.open('/job/cancel-a');
    await page().locator('#job-state').getByText('delayed').waitFor();
    await page().getByRole('button', { name: 'Cancel' }).click();
    await page().locator('#confirm').getByRole('button', { name: 'Keep as is' }).click();
    expect((await api('GET', '/v1/jobs/cancel-a')).body.job.state).toBe('delayed');
    await page().getByRole('button', { name: 'Cancel' }).click();
    await s.confirm('Cancel cancel-a? It will never be delivered (it is delayed).');
    await page().locator('#timeline li[data-event=cancel]').waitFor();
    expect(await page().locator('#action-message').textContent()).toBe('cancel: done');
    expect((await api('GET', '/v1/jobs/cancel-a')).body.job.state).toBe('cancelled');
    await page().evaluate("location.hash = '#/job/cancel-b'");
    await page().locator('#job-state').getByText('delayed').waitFor();
    expect(await page().locator('h1 code').textContent()).toBe('cancel-b');
    expect(await page().locator('#action-message').count()).toBe(0);
  });

  it('reschedules a delayed job from its page after a confirmation', async () => {
    await api('POST', '/v1/jobs', { topic: 'invoices', id: 'inv-9', delayMs: 5 * MINUTE });
    await s.open('/job/inv-9', 1);
    await page().locator('#job-state').getByText('delayed').waitFor();
    await page().locator('input[name=delay]').fill('2h');
    const before = s.target().runtimes[0]!.service.clock.now();
    await page().getByRole('button', { name: 'Reschedule' }).click();
    await s.confirm('Move inv-9 to 2h from now');
    await page().locator('#action-message').getByText('reschedule: done').waitFor();
    await page().locator('#timeline li[data-event=reschedule]').waitFor();
    const runAt = (await api('GET', '/v1/jobs/inv-9')).body.job.runAt as number;
    expect(runAt).toBeGreaterThanOrEqual(before + 120 * MINUTE - 1000);
    expect(runAt).toBeLessThanOrEqual(s.target().runtimes[0]!.service.clock.now() + 120 * MINUTE);
  });

  it('runs a delayed job now from its page after a confirmation; a ready job offers no such button', async () => {
    await api('POST', '/v1/jobs', { topic: 'invoices', id: 'inv-10', delayMs: 90 * MINUTE });
    await s.open('/job/inv-10', 1);
    await page().locator('#job-state').getByText('delayed').waitFor();
    await page().getByRole('button', { name: 'Run now' }).click();
    await s.confirm('Run inv-10 now? It becomes ready at once');
    await page().locator('#action-message').getByText('run now: done').waitFor();
    await page().locator('#job-state').getByText('ready').waitFor();
    await page().locator('#timeline li[data-event=promote]').getByText('run now').waitFor();
    expect((await api('GET', '/v1/jobs/inv-10')).body.job.state).toBe('ready');
    expect(await page().getByRole('button', { name: 'Run now' }).count()).toBe(0);
  });

  it('acts on many: counts with a dry run, says what it will do, and shows the progress to the end', async () => {
    const jobs = Array.from({ length: 30 }, (_, i) => ({
      topic: i % 2 ? 'bulk.a' : 'bulk.b',
      id: `bulk-${i}`,
      bizKey: 'order-77',
      delayMs: 30 * MINUTE,
    }));
    await api('POST', '/v1/jobs/batch', { jobs });
    await api('POST', '/v1/jobs', { topic: 'bulk.a', id: 'bulk-other', bizKey: 'order-78', delayMs: 30 * MINUTE });
    await s.open('/bulk?bizKey=order-77&action=cancel', 1);
    await page().getByRole('button', { name: 'Count (dry run)' }).click();
    await page().locator('#bulk-progress[data-phase=counted]').waitFor();
    expect(await page().locator('#bulk-progress').getAttribute('data-matched')).toBe('30');
    expect((await api('GET', '/v1/jobs/bulk-0')).body.job.state).toBe('delayed'); // a dry run changes nothing
    await page().getByRole('button', { name: 'cancel 30 jobs…' }).click();
    await s.confirm('Cancel the 30 jobs (delayed, ready or reserved) with bizKey=order-77?');
    await page().locator('#bulk-progress[data-phase=done]').waitFor();
    expect(await page().locator('#bulk-progress').getAttribute('data-applied')).toBe('30');
    expect(await page().locator('#bulk-progress').textContent()).toContain('30 of 30 cancelled: done.');
    const states = await Promise.all(jobs.map(async (j) => (await api('GET', `/v1/jobs/${j.id}`)).body.job.state));
    expect(new Set(states)).toEqual(new Set(['cancelled']));
    expect((await api('GET', '/v1/jobs/bulk-other')).body.job.state).toBe('delayed');
  });

  it('creates a schedule with a preview that marks the DST change, edits, pauses and deletes it', async () => {
    const change = nextEuropeanSpringChange();
    // midnight, as a wall time in Berlin (+01:00 then): 23:00 UTC the day before
    const startLocal = new Date(change - 2 * DAY).toISOString().slice(0, 16);
    await s.open('/schedules');
    await page().locator('#new-schedule').click();
    const editor = page().locator('#schedule-editor');
    await editor.locator('input[name=name]').fill('berlin-night');
    await editor.locator('input[name=topic]').fill('reports');
    await editor.locator('input[name=cron]').fill('0 30 2 * * *');
    await editor.locator('input[name=timeZone]').fill('Europe/Berlin');
    await editor.locator('input[name=startAt]').fill(startLocal);
    await editor.getByRole('button', { name: 'Preview next fires' }).click();
    const fires = page().locator('#preview-fires li');
    await fires.nth(9).waitFor();
    const offsets = await fires.evaluateAll((li) => li.map((l) => l.getAttribute('data-offset')));
    expect(offsets.slice(0, 2)).toEqual(['+01:00', '+01:00']);
    expect(offsets.slice(3)).toEqual(Array(7).fill('+02:00'));
    const marked = page().locator('#preview-fires li.dst-change');
    expect(await marked.count()).toBe(1);
    expect(await marked.textContent()).toContain('DST change: +01:00 → +02:00');
    expect((await api('GET', '/v1/schedules/berlin-night')).status).toBe(404); // previewing stores nothing
    // a bad field is named, and nothing is stored
    await editor.locator('input[name=cron]').fill('0 30 25 * * *');
    await editor.getByRole('button', { name: 'Create' }).click();
    expect(await page().locator('#editor-error').getAttribute('data-field')).toBe('cron');
    await editor.locator('input[name=cron]').fill('0 30 2 * * *');
    await editor.getByRole('button', { name: 'Create' }).click();
    await page().locator('#schedule-state').getByText('active').waitFor();
    expect(page().url()).toContain('#/schedule/berlin-night');
    expect(await page().locator('#next-fires li.dst-change').count()).toBe(1);

    await page().getByRole('button', { name: 'Edit' }).click();
    await page().locator('#schedule-editor input[name=cron]').fill('0 0 4 * * *');
    await page().getByRole('button', { name: 'Save changes' }).click();
    await page().locator('#editor-saved').getByText('saved').waitFor();
    expect((await api('GET', '/v1/schedules/berlin-night', undefined, 1)).body.schedule).toMatchObject({
      cron: '0 0 4 * * *',
      timeZone: 'Europe/Berlin',
      startAt: change - 2 * DAY - 3_600_000,
    });
    await page().getByRole('button', { name: 'Pause' }).click();
    await s.confirm('Pause berlin-night?');
    await page().locator('#schedule-state').getByText('paused').waitFor();
    expect((await api('GET', '/v1/schedules/berlin-night')).body.schedule.paused).toBe(true);
    await page().getByRole('button', { name: 'Delete' }).click();
    await s.confirm('Delete berlin-night? It stops firing');
    await page().locator('#schedules').waitFor();
    expect((await api('GET', '/v1/schedules/berlin-night')).status).toBe(404);
  });

  it("shows a schedule's last fires with their jobs", async () => {
    expect(
      (await api('PUT', '/v1/schedules/heartbeat', { topic: 'beats', everyMs: 1000, job: { body: 'beat' } })).status,
    ).toBe(201);
    await waitFor(
      async () => (await api('GET', '/v1/schedules/heartbeat')).body.schedule.fired >= 3,
      '3 fires',
      15_000,
    );
    await s.open('/schedule/heartbeat', 1);
    const last = page().locator('#last-fires tbody tr');
    await last.nth(2).waitFor();
    const ids = await last.evaluateAll((trs) => trs.map((r) => r.getAttribute('data-id')!));
    expect(ids.every((id) => id.startsWith('heartbeat~'))).toBe(true);
    const newest = (await api('GET', `/v1/jobs/${ids[0]}`)).body.job;
    expect(newest).toMatchObject({ topic: 'beats', body: 'beat' });
    expect(await page().locator('#next-fires li').count()).toBe(10);
    await api('DELETE', '/v1/schedules/heartbeat');
  });

  it('binds a topic to a webhook, test-delivers to it, and deletes the binding after a confirmation', async () => {
    const receiver = await new HttpReceiver().listen();
    try {
      await s.open('/sinks');
      const form = page().locator('#sink-form');
      await form.locator('input[name=topic]').fill('hooked');
      await form
        .locator('textarea[name=config]')
        .fill(JSON.stringify({ url: receiver.url(), allowedRanges: ['loopback'], name: 'hook-1' }));
      await form.getByRole('button', { name: 'Save binding' }).click();
      await page().locator('#sink-saved').getByText('bound hooked to a webhook sink').waitFor();
      const row = page().locator('#sinks tr[data-topic=hooked]');
      await row.waitFor();
      expect(await row.textContent()).toContain('hook-1');
      await row.getByRole('button', { name: 'Test' }).click();
      await row
        .locator('[data-field=test-result]')
        .getByText(/^delivered in \d+ ms \(sink-test-/)
        .waitFor();
      expect(receiver.requests).toHaveLength(1);
      expect(String(receiver.requests[0]!.headers['delayq-job-id'])).toMatch(/^sink-test-/);
      receiver.handler = (_req, res) => res.writeHead(500).end();
      await row.getByRole('button', { name: 'Test' }).click();
      await row.locator('[data-field=test-result]').getByText('failed: HTTP 500').waitFor();
      // a bad config is refused naming the field
      await form.locator('input[name=topic]').fill('hooked-2');
      await form.locator('textarea[name=config]').fill(JSON.stringify({ url: 'ftp://nowhere' }));
      await form.getByRole('button', { name: 'Save binding' }).click();
      expect(await page().locator('#sink-error').textContent()).toMatch(/url/);
      await row.getByRole('button', { name: 'Delete' }).click();
      await s.confirm('Delete the webhook binding of hooked?');
      await row.waitFor({ state: 'detached' });
      expect((await api('GET', '/v1/topics/hooked/sink', undefined, 1)).status).toBe(404);
    } finally {
      await receiver.close();
    }
  });

  it("sets a topic's dispatch rate limit after a confirmation, the same on every node, and removes it", async () => {
    const limit = page().locator('#rate-limit');
    const form = page().locator('#rate-limit-form');
    await s.open('/topic/throttled', 1);
    await limit.getByText('none').waitFor();
    await form.locator('input[name=perSecond]').fill('2.5');
    await form.locator('input[name=burst]').fill('4');
    await form.getByRole('button', { name: 'Set limit' }).click();
    await page().locator('#confirm').getByRole('button', { name: 'Keep as is' }).click();
    expect((await api('GET', '/v1/topics/throttled/settings')).body).toEqual({ topic: 'throttled' });
    await form.getByRole('button', { name: 'Set limit' }).click();
    await s.confirm('Limit throttled to 2.5 jobs a second, burst 4, on every instance?');
    await page().locator('#rate-limit-saved').getByText('limit set').waitFor();
    await limit.getByText('2.5 jobs a second, burst 4').waitFor();
    expect((await api('GET', '/v1/topics/throttled/settings')).body).toEqual({
      topic: 'throttled',
      rateLimit: { perSecond: 2.5, burst: 4 },
    });
    const shown = await s.onEveryNode('/topic/throttled', async () => {
      await limit.getByText('2.5 jobs a second, burst 4').waitFor();
      return {
        perSecond: await limit.getAttribute('data-per-second'),
        burst: await limit.getAttribute('data-burst'),
        form: await form.locator('input[name=perSecond]').inputValue(),
      };
    });
    expect(shown).toEqual({ perSecond: '2.5', burst: '4', form: '2.5' });
    await form.getByRole('button', { name: 'Remove limit' }).click();
    await s.confirm('Remove the rate limit of throttled?');
    await limit.getByText('none').waitFor();
    expect((await api('GET', '/v1/topics/throttled/settings', undefined, 1)).body).toEqual({ topic: 'throttled' });
    expect(await form.getByRole('button', { name: 'Remove limit' }).count()).toBe(0);
  });

  it("sets a topic's group concurrency beside its rate limit (or shows the store refusing it), and removes it", async () => {
    const shown = page().locator('#group-concurrency');
    const form = page().locator('#group-concurrency-form');
    await api('PUT', '/v1/topics/tenants/settings', { rateLimit: { perSecond: 5, burst: 2 } });
    await s.open('/topic/tenants');
    await shown.getByText('none').waitFor();
    await form.locator('input[name=groupConcurrency]').fill('2');
    await form.getByRole('button', { name: 'Set bound' }).click();
    await s.confirm('Allow at most 2 jobs of one group of tenants out at once, on every instance?');
    if (!s.target().groups) {
      const error = page().locator('#group-concurrency-error');
      await error.waitFor();
      expect(await error.getAttribute('data-field')).toBe('groupConcurrency');
      expect((await api('GET', '/v1/topics/tenants/settings')).body).toEqual({
        topic: 'tenants',
        rateLimit: { perSecond: 5, burst: 2 },
      });
      return;
    }
    await shown.getByText('at most 2 jobs of one group at once').waitFor();
    // the rate limit went along unchanged, and a change of the rate limit keeps the bound
    expect((await api('GET', '/v1/topics/tenants/settings')).body).toEqual({
      topic: 'tenants',
      rateLimit: { perSecond: 5, burst: 2 },
      groupConcurrency: 2,
    });
    const rate = page().locator('#rate-limit-form');
    await rate.locator('input[name=perSecond]').fill('7');
    await rate.getByRole('button', { name: 'Set limit' }).click();
    await s.confirm('Limit tenants to 7 jobs a second, burst 2');
    await page().locator('#rate-limit').getByText('7 jobs a second, burst 2').waitFor();
    expect((await api('GET', '/v1/topics/tenants/settings')).body).toMatchObject({ groupConcurrency: 2 });
    await form.locator('input[name=groupConcurrency]').fill('0');
    await form.getByRole('button', { name: 'Set bound' }).click();
    await s.confirm('Allow at most 0 jobs');
    const error = page().locator('#group-concurrency-error');
    await error.waitFor();
    expect(await error.getAttribute('data-field')).toBe('groupConcurrency');
    await form.getByRole('button', { name: 'Remove bound' }).click();
    await s.confirm('Remove the bound on each group of tenants?');
    await shown.getByText('none').waitFor();
    expect((await api('GET', '/v1/topics/tenants/settings')).body).toEqual({
      topic: 'tenants',
      rateLimit: { perSecond: 7, burst: 2 },
    });
  });

  it("sets each group's own rate limit beside the topic's settings (or shows the store refusing it), and removes it", async () => {
    const shown = page().locator('#group-rate-limit');
    const form = page().locator('#group-rate-limit-form');
    await api('PUT', '/v1/topics/tenants-rated/settings', { rateLimit: { perSecond: 5, burst: 2 } });
    await s.open('/topic/tenants-rated');
    await shown.getByText('none').waitFor();
    await form.locator('input[name=perSecond]').fill('3');
    await form.locator('input[name=burst]').fill('2');
    await form.getByRole('button', { name: 'Set limit' }).click();
    await s.confirm('Limit each group of tenants-rated to 3 jobs a second, burst 2, on every instance?');
    if (!s.target().groups) {
      const error = page().locator('#group-rate-limit-error');
      await error.waitFor();
      expect(await error.getAttribute('data-field')).toBe('groupRateLimit');
      expect((await api('GET', '/v1/topics/tenants-rated/settings')).body).toEqual({
        topic: 'tenants-rated',
        rateLimit: { perSecond: 5, burst: 2 },
      });
      return;
    }
    await shown.getByText('3 jobs a second, burst 2').waitFor();
    // The topic's own rate limit went along unchanged, and its panel still shows it.
    expect((await api('GET', '/v1/topics/tenants-rated/settings')).body).toEqual({
      topic: 'tenants-rated',
      rateLimit: { perSecond: 5, burst: 2 },
      groupRateLimit: { perSecond: 3, burst: 2 },
    });
    await page().locator('#rate-limit').getByText('5 jobs a second, burst 2').waitFor();
    await form.locator('input[name=perSecond]').fill('0');
    await form.getByRole('button', { name: 'Set limit' }).click();
    await s.confirm('Limit each group of tenants-rated to 0 jobs a second');
    const error = page().locator('#group-rate-limit-error');
    await error.waitFor();
    expect(await error.getAttribute('data-field')).toBe('groupRateLimit.perSecond');
    await form.getByRole('button', { name: 'Remove limit' }).click();
    await s.confirm('Remove the rate limit of each group of tenants-rated?');
    await shown.getByText('none').waitFor();
    expect((await api('GET', '/v1/topics/tenants-rated/settings')).body).toEqual({
      topic: 'tenants-rated',
      rateLimit: { perSecond: 5, burst: 2 },
    });
  });

  it('pauses one group of a topic after a confirmation, lists it and resumes it (or shows the store refusing it)', async () => {
    const form = page().locator('#group-pause-form');
    await s.open('/topic/tenants-paused');
    await page().locator('#paused-groups-none').waitFor();
    await form.locator('input[name=group]').fill('merchant-7');
    await form.locator('input[name=delayMs]').fill('1h');
    await form.getByRole('button', { name: 'Pause group' }).click();
    await s.confirm('Pause the group merchant-7 of tenants-paused for 1h?');
    if (!s.target().groups) {
      const error = page().locator('#group-pause-error');
      await error.waitFor();
      expect(await error.getAttribute('data-field')).toBe('group');
      expect((await api('GET', '/v1/topics/tenants-paused/groups/paused')).body.groups).toEqual([]);
      return;
    }
    const row = page().locator('#paused-groups li[data-group="merchant-7"]');
    await row.getByText('until').waitFor();
    const [listed] = (await api('GET', '/v1/topics/tenants-paused/groups/paused')).body.groups;
    expect(listed.group).toBe('merchant-7');
    expect(listed.pausedUntil).toBeGreaterThan(Date.now() + 3_500_000);
    await form.locator('input[name=group]').fill('a b');
    await form.locator('input[name=delayMs]').fill('');
    await form.getByRole('button', { name: 'Pause group' }).click();
    await s.confirm('Pause the group a b of tenants-paused until it is resumed?');
    await page().locator('#group-pause-error').waitFor();
    await row.getByRole('button', { name: 'Resume' }).click();
    await page().locator('#paused-groups-none').waitFor();
    expect((await api('GET', '/v1/topics/tenants-paused/groups/paused')).body.groups).toEqual([]);
  });

  it('shows the API refusing a rate of 0, naming the field, and stores nothing', async () => {
    await s.open('/topic/throttled-bad');
    await page().locator('#rate-limit').getByText('none').waitFor();
    const form = page().locator('#rate-limit-form');
    await form.locator('input[name=perSecond]').fill('0');
    await form.getByRole('button', { name: 'Set limit' }).click();
    await s.confirm('Limit throttled-bad to 0 jobs a second, burst 1');
    const error = page().locator('#rate-limit-error');
    await error.waitFor();
    expect(await error.getAttribute('data-field')).toBe('rateLimit.perSecond');
    const refused = await api('PUT', '/v1/topics/throttled-bad/settings', { rateLimit: { perSecond: 0 } });
    expect(refused.status).toBe(400);
    expect(await error.textContent()).toBe(refused.body.error.message);
    expect(refused.body.error.message).toContain('rateLimit.perSecond');
    expect(await form.locator('input[name=perSecond]').getAttribute('class')).toBe('invalid');
    expect((await api('GET', '/v1/topics/throttled-bad/settings')).body).toEqual({ topic: 'throttled-bad' });
    expect(await page().locator('#rate-limit').textContent()).toBe('none');
  });
}
