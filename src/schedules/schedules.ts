import type { EpochMs } from '../core/clock.js';
import { DelayqError } from '../core/errors.js';
import type { DelayqService } from '../service/service.js';
import { tickJobId, type ScheduleRecord } from '../core/schedule.js';
import { normalizeSchedule, validateScheduleName, type ScheduleInput } from './schedule-input.js';
import { lastFires, nextFires, type ScheduleFires } from './schedule-fires.js';
import { nextFireAt } from './schedule-plan.js';
import { newRecord, replacedRecord, type ScheduleGuard, type ScheduleStore } from '../store/schedule-store.js';

/** A schedule as the API shows it: the record, when it fires next and the job of its latest fire. */
export interface ScheduleView extends ScheduleRecord {
  nextFireAt: EpochMs | null;
  lastJobId: string | null;
}

/** The operations of `/v1/schedules`, the SDK and the CLI; each change wakes the local runner. */
export class Schedules {
  readonly store: ScheduleStore;
  private readonly service: DelayqService;
  private readonly onChange: () => void;

  /** `onChange` wakes the local runner (ScheduleRunner.wakeNow) after a write. */
  constructor(store: ScheduleStore, service: DelayqService, onChange: () => void = () => undefined) {
    this.store = store;
    this.service = service;
    this.onChange = onChange;
  }

  view(record: ScheduleRecord): ScheduleView {
    return {
      ...record,
      nextFireAt: nextFireAt(record, this.service.clock.now()),
      lastJobId: record.lastFiredAt === null ? null : tickJobId(record.name, record.lastFiredAt),
    };
  }

  /**
   * Creates or replaces a schedule; the change applies from its first tick not yet pushed. `guard` (a caller
   * limited to some topics) keeps other schedules of the name out: E_CONFLICT, the name is taken.
   */
  async put(
    name: string,
    input: ScheduleInput,
    guard?: ScheduleGuard,
  ): Promise<{ schedule: ScheduleView; created: boolean }> {
    const now = this.service.clock.now();
    const definition = normalizeSchedule(name, input, now, this.service.defaults);
    const { record, created } = await this.store.put(definition, now, guard);
    this.onChange();
    return { schedule: this.view(record), created };
  }

  /**
   * The next `count` ticks `put(name, input)` would give, as if active, without storing anything: a new
   * schedule's from now, a replacement's from its first tick not yet pushed (one `guard` refuses counts as new).
   */
  async preview(
    name: string,
    input: ScheduleInput,
    count: number,
    guard?: ScheduleGuard,
  ): Promise<{ next: EpochMs[]; timeZone: string }> {
    const now = this.service.clock.now();
    const definition = normalizeSchedule(name, input, now, this.service.defaults);
    const stored = await this.store.get(definition.name);
    const old = stored && (!guard || guard(stored)) ? stored : null;
    const record = old ? replacedRecord(old, definition, now) : newRecord(definition, now);
    return { next: nextFires({ ...record, paused: false }, now, count), timeZone: definition.timeZone };
  }

  /** The schedule; one that `guard` refuses is answered as a name no schedule has (404). */
  async get(name: string, guard?: ScheduleGuard): Promise<ScheduleView> {
    return this.view(await this.record(name, guard));
  }

  private async record(name: string, guard: ScheduleGuard | undefined): Promise<ScheduleRecord> {
    const record = await this.store.get(validateScheduleName(name));
    if (!record || (guard && !guard(record))) throw notFound(name);
    return record;
  }

  /**
   * The schedule's next `next` ticks and its latest `last` fires with their jobs (newest first): only jobs of
   * the schedule's topic, so a fire never shows a job of another topic, whatever holds the tick's id.
   */
  async fires(name: string, counts: { next: number; last: number }, guard?: ScheduleGuard): Promise<ScheduleFires> {
    const record = await this.record(name, guard);
    const getJob = (id: string) =>
      this.service.get(id).then(
        (job) => (job.topic === record.topic ? job : undefined),
        (err: unknown) => {
          if (err instanceof DelayqError && err.code === 'E_NOT_FOUND') return undefined;
          throw err;
        },
      );
    return {
      next: nextFires(record, this.service.clock.now(), counts.next),
      last: await lastFires(record, counts.last, getJob),
    };
  }

  async list(): Promise<ScheduleView[]> {
    return (await this.store.list()).map((record) => this.view(record));
  }

  async delete(name: string, guard?: ScheduleGuard): Promise<void> {
    if (!(await this.store.delete(validateScheduleName(name), guard))) throw notFound(name);
  }

  async setPaused(name: string, paused: boolean, guard?: ScheduleGuard): Promise<ScheduleView> {
    const now = this.service.clock.now();
    const record = await this.store.setPaused(validateScheduleName(name), paused, now, guard);
    if (!record) throw notFound(name);
    this.onChange();
    return this.view(record);
  }
}

function notFound(name: string): DelayqError {
  return new DelayqError('E_NOT_FOUND', `schedule ${name} does not exist`, { details: { name } });
}
