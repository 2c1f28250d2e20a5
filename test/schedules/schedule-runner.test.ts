import { afterEach, describe, expect, it } from 'vitest';
import { iso, ScheduleHarness } from './schedule-harness.js';

let harness: ScheduleHarness;
afterEach(async () => harness?.close());

const T0 = Date.parse('2026-01-01T00:00:00Z');
const open = (start = T0) => new ScheduleHarness(start).open();

describe('cron in a time zone across both DST transitions', () => {
  it('fires a daily 02:30 New York schedule once a day all year: the gap day at 03:00, the overlap day once', async () => {
    harness = await open();
    await harness.schedules.put('daily', {
      topic: 'report',
      cron: '0 30 2 * * *',
      timeZone: 'America/New_York',
      job: { body: { kind: 'daily' } },
    });
    await harness.startRunner();
    await harness.runUntil(Date.parse('2027-01-01T00:00:00Z'));
    const jobs = await harness.jobs('report');
    expect(jobs).toHaveLength(365);
    const local = jobs.map((j) => new Date(j.runAt).toLocaleString('sv-SE', { timeZone: 'America/New_York' }));
    // One fire per local day, none lost, none doubled.
    expect(new Set(local.map((t) => t.slice(0, 10))).size).toBe(365);
    expect(local.filter((t) => !t.endsWith('02:30:00'))).toEqual(['2026-03-08 03:00:00']); // the spring gap
    expect(jobs.find((j) => iso(j.runAt).startsWith('2026-11-01'))!.runAt).toBe(Date.parse('2026-11-01T07:30:00Z')); // 02:30 EST, after the repeated hour
    expect(jobs.every((j) => j.id === `daily~${j.runAt}`)).toBe(true);
    expect(jobs[0]!.body).toBe('{"kind":"daily"}');
  });

  it('fires 01:30 Berlin-time once on the overlap day (the earlier instant) and an hourly schedule on elapsed hours', async () => {
    harness = await open(Date.parse('2026-10-24T12:00:00Z'));
    await harness.schedules.put('once-a-night', { topic: 'night', cron: '0 30 2 * * *', timeZone: 'Europe/Berlin' });
    await harness.schedules.put('hourly', { topic: 'hourly', cron: '0 0 * * * *', timeZone: 'Europe/Berlin' });
    await harness.startRunner();
    await harness.runUntil(Date.parse('2026-10-26T12:00:00Z'));
    expect((await harness.jobs('night')).map((j) => iso(j.runAt))).toEqual([
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:30:00.000Z',
    ]);
    const hourly = await harness.jobs('hourly');
    expect(hourly).toHaveLength(48); // 48 real hours from 24th 12:00Z to 26th 12:00Z, the repeated 02:00 included
    expect(new Set(hourly.map((j) => j.runAt)).size).toBe(48);
  });

  it('pushes each tick ahead of its time as a delayed job due at the tick', async () => {
    harness = await open();
    await harness.schedules.put('every5s', { topic: 'five', cron: '*/5 * * * * *' });
    await harness.startRunner();
    await harness.runUntil(T0 + 3000); // lead 2 s: the 5 s tick is pushed at 3 s
    const jobs = await harness.jobs('five');
    expect(jobs.map((j) => [j.id, j.state, j.runAt])).toEqual([[`every5s~${T0 + 5000}`, 'delayed', T0 + 5000]]);
  });
});

describe('interval schedules, start, end and fire limit', () => {
  it('fires every interval from its start until its end', async () => {
    harness = await open();
    await harness.schedules.put('tick', { topic: 'tick', everyMs: '10s', startAt: T0 + 60_000, endAt: T0 + 120_000 });
    await harness.startRunner();
    await harness.runUntil(T0 + 600_000);
    const ticks = (await harness.jobs('tick')).map((j) => j.runAt - T0);
    expect(ticks).toEqual([60_000, 70_000, 80_000, 90_000, 100_000, 110_000, 120_000]);
    expect((await harness.schedules.get('tick')).nextFireAt).toBeNull();
  });

  it('counts ticks from creation without startAt, and stops at maxFires', async () => {
    harness = await open(T0 + 123);
    await harness.schedules.put('limited', { topic: 'lim', everyMs: 1000, maxFires: 3 });
    await harness.startRunner();
    await harness.runUntil(T0 + 60_000);
    expect((await harness.jobs('lim')).map((j) => j.runAt - T0)).toEqual([1123, 2123, 3123]);
    const view = await harness.schedules.get('limited');
    expect(view).toMatchObject({ fired: 3, nextFireAt: null, lastJobId: `limited~${T0 + 3123}` });
  });

  it('applies a change from the first tick not yet pushed, and pause/resume skips the paused ticks', async () => {
    harness = await open();
    await harness.schedules.put('chg', { topic: 'chg', everyMs: 10_000, job: { body: 1 } });
    await harness.startRunner();
    await harness.runUntil(T0 + 25_000);
    await harness.schedules.put('chg', { topic: 'chg', everyMs: 10_000, job: { body: 2 } });
    await harness.runUntil(T0 + 45_000);
    await harness.schedules.setPaused('chg', true);
    await harness.runUntil(T0 + 95_000);
    expect((await harness.schedules.get('chg')).nextFireAt).toBeNull();
    await harness.schedules.setPaused('chg', false);
    await harness.runUntil(T0 + 115_000);
    const jobs = (await harness.jobs('chg')).map((j) => [j.runAt - T0, j.body]);
    expect(jobs).toEqual([
      [10_000, '1'],
      [20_000, '1'],
      [30_000, '2'],
      [40_000, '2'],
      [100_000, '2'],
      [110_000, '2'],
    ]);
  });
});

describe('missed ticks after a downtime', () => {
  async function downtime(missed: 'skip' | 'once' | 'each', catchUpMax?: number): Promise<number[]> {
    harness = await open();
    await harness.schedules.put('m', { topic: 'm', everyMs: 60_000, missed, ...(catchUpMax ? { catchUpMax } : {}) });
    await harness.startRunner();
    await harness.runUntil(T0 + 150_000); // ticks at 1 and 2 min fired
    await harness.stopRunner();
    harness.clock.set(T0 + 10 * 60_000 + 30_000); // down until 10:30: ticks at 3…10 min missed
    await harness.startRunner();
    await harness.runUntil(T0 + 12 * 60_000 + 30_000);
    // Each job as its tick, negated when its runAt is not its tick (docs/schedules.md: runAt is the tick).
    return (await harness.jobs('m')).map((j) =>
      j.id.endsWith(`~${j.runAt}`) ? j.runAt - T0 : -(Number(j.id.split('~')[1]) - T0),
    );
  }

  it('skip: fires none of them and carries on', async () => {
    expect(await downtime('skip')).toEqual([60_000, 120_000, 660_000, 720_000]);
  });

  it('once: fires the latest missed tick at once, then carries on', async () => {
    // The catch-up job is due at its tick (10:00), already past at restart (10:30): ready at once.
    expect(await downtime('once')).toEqual([60_000, 120_000, 600_000, 660_000, 720_000]);
    expect((await harness.service.get(`m~${T0 + 600_000}`)).state).toBe('ready');
  });

  it('each: fires every missed tick (the latest catchUpMax), each under its own id', async () => {
    const all = await downtime('each');
    expect(all).toEqual([
      60_000, 120_000, 180_000, 240_000, 300_000, 360_000, 420_000, 480_000, 540_000, 600_000, 660_000, 720_000,
    ]);
    await harness.close();
    expect(await downtime('each', 3)).toEqual([60_000, 120_000, 480_000, 540_000, 600_000, 660_000, 720_000]);
  });

  it('is the same for cron schedules after a restart', async () => {
    harness = await open();
    await harness.schedules.put('c', { topic: 'c', cron: '0 * * * * *', missed: 'each', timeZone: 'Asia/Shanghai' });
    await harness.startRunner();
    await harness.stopRunner();
    harness.clock.set(T0 + 5 * 60_000 + 10_000);
    await harness.startRunner();
    await harness.runUntil(T0 + 6 * 60_000);
    expect((await harness.jobs('c')).map((j) => j.id)).toEqual([1, 2, 3, 4, 5, 6].map((m) => `c~${T0 + m * 60_000}`));
  });
});
