import { DEFAULTS } from '../config.js';
import type { TimerHandle } from '../core/clock.js';
import type { PushInput } from '../core/job-input.js';
import { LIMITS } from '../core/limits.js';
import type { DelayqService } from '../service/service.js';
import { tickJobId, type ScheduleRecord } from '../core/schedule.js';
import { planTicks, type PlanTiming, type TickPlan } from './schedule-plan.js';
import type { CursorMove, ScheduleStore } from '../store/schedule-store.js';
import { nextTickAfter } from './schedule-ticks.js';

export interface ScheduleRunnerOptions extends PlanTiming {
  /** Longest sleep between rounds, so schedules changed on another instance are picked up. */
  refreshIntervalMs: number;
}

/** config.ts's `schedules` defaults. */
export const DEFAULT_SCHEDULE_RUNNER_OPTIONS: ScheduleRunnerOptions = DEFAULTS.schedules;

const PUSH_CHUNK = 1000;
/** A floor under the sleep between rounds: a schedule whose tick is already due is planned by this round. */
const MIN_SLEEP_MS = 10;

/**
 * Fires schedules: each round reads every schedule, pushes the jobs of the ticks due within `leadMs`
 * (ordinary delayed jobs with id `<name>~<tick>`, so the job timer fires them on time and several
 * instances pushing the same tick make one job), then moves each cursor by compare-and-set. Pushing
 * before moving means a crash in between only repeats pushes of the same ids.
 */
export class ScheduleRunner {
  private readonly store: ScheduleStore;
  private readonly service: DelayqService;
  private readonly options: ScheduleRunnerOptions;
  private readonly onError: (err: unknown) => void;
  private timer: TimerHandle | undefined;
  private current: Promise<void> | undefined;
  private running = false;
  private again = false;

  constructor(
    store: ScheduleStore,
    service: DelayqService,
    options: Partial<ScheduleRunnerOptions> = {},
    onError: (err: unknown) => void = () => undefined,
  ) {
    this.store = store;
    this.service = service;
    this.options = { ...DEFAULT_SCHEDULE_RUNNER_OPTIONS, ...options };
    this.onError = onError;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.wakeNow();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.timer?.cancel();
    this.timer = undefined;
    await this.current;
  }

  /** Runs a round now (after a schedule changed here); a round already running is followed by another. */
  wakeNow(): void {
    if (!this.running) return;
    if (this.current) {
      this.again = true;
      return;
    }
    this.timer?.cancel();
    this.timer = undefined;
    this.current = this.round()
      .then(
        (wakeInMs) => this.arm(this.again ? 0 : wakeInMs),
        (err) => {
          this.onError(err);
          this.arm(this.options.refreshIntervalMs);
        },
      )
      .finally(() => {
        this.current = undefined;
        this.again = false;
      });
  }

  /** Resolves when the round in progress (if any) has ended. */
  async settled(): Promise<void> {
    while (this.current) await this.current;
  }

  private arm(delayMs: number): void {
    if (!this.running) return;
    this.timer?.cancel();
    this.timer = this.service.clock.setTimer(
      () => {
        this.timer = undefined;
        this.wakeNow();
      },
      Math.max(0, delayMs),
    );
  }

  /** One round over every schedule; resolves with how long to sleep before the next. */
  private async round(): Promise<number> {
    const schedules = await this.store.list();
    // Read after the schedules: a resume seen in them was written before now, so its skip covers every tick
    // due while the store still had the schedule paused.
    const now = this.service.clock.now();
    const planned: { schedule: ScheduleRecord; plan: TickPlan }[] = [];
    for (const schedule of schedules) {
      const plan = planTicks(schedule, now, this.options);
      if (plan) planned.push({ schedule, plan });
    }
    const jobs = planned.flatMap(({ schedule, plan }) => plan.ticks.map((tick) => jobOf(schedule, tick, now)));
    for (let i = 0; i < jobs.length; i += PUSH_CHUNK) await this.push(jobs.slice(i, i + PUSH_CHUNK));
    if (planned.length)
      await this.store.moveCursors(
        planned.map(({ schedule, plan }) => moveOf(schedule, plan)),
        now,
      );

    const plans = new Map(planned.map(({ schedule, plan }) => [schedule.name, plan]));
    let wakeAt = now + this.options.refreshIntervalMs;
    for (const schedule of schedules) {
      const plan = plans.get(schedule.name);
      const fired = schedule.fired + (plan?.ticks.length ?? 0);
      if (schedule.paused || (schedule.maxFires !== null && fired >= schedule.maxFires)) continue;
      const next = nextTickAfter(schedule, plan?.cursorAt ?? schedule.cursorAt);
      if (next !== null) wakeAt = Math.min(wakeAt, next - this.options.leadMs);
    }
    return Math.max(wakeAt - now, MIN_SLEEP_MS);
  }

  /** Pushes one chunk; a refused chunk (a template a later config made invalid) is pushed job by job. */
  private async push(jobs: PushInput[]): Promise<void> {
    try {
      await this.service.pushBatch(jobs, { ownIds: true });
    } catch (err) {
      if (jobs.length === 1) throw err;
      for (const job of jobs) await this.service.pushBatch([job], { ownIds: true }).catch(this.onError);
    }
  }
}

/** How far back a tick's job may be due: a day inside the oldest runAt a push takes (core/limits.ts). */
const OLDEST_TICK_RUN_AT_MS = LIMITS.pastRunAtToleranceMs - 86_400_000;

/** A tick's job is due at its tick, also when pushed late (a catch-up, a late round): then it is ready at once. */
function jobOf(schedule: ScheduleRecord, tick: number, now: number): PushInput {
  return {
    ...schedule.job,
    topic: schedule.topic,
    id: tickJobId(schedule.name, tick),
    runAt: Math.max(tick, now - OLDEST_TICK_RUN_AT_MS),
  };
}

function moveOf(schedule: ScheduleRecord, plan: TickPlan): CursorMove {
  return {
    name: schedule.name,
    revision: schedule.revision,
    fromCursorAt: schedule.cursorAt,
    toCursorAt: plan.cursorAt,
    fired: plan.ticks.length,
    lastFiredAt: plan.ticks.length ? plan.ticks[plan.ticks.length - 1]! : null,
  };
}
