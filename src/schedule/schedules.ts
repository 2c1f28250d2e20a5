import type { EpochMs } from '../core/clock.js';
import { DelayqError } from '../core/errors.js';
import type { DelayqService } from '../service/service.js';
import { tickJobId, type ScheduleRecord } from './schedule.js';
import { normalizeSchedule, validateScheduleName, type ScheduleInput } from './schedule-input.js';
import { lastFires, nextFires, type ScheduleFires } from './schedule-fires.js';
import { nextFireAt } from './schedule-plan.js';
import type { ScheduleStore } from './schedule-store.js';

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

  /** Creates or replaces a schedule; the change applies from its first tick not yet pushed. */
  async put(name: string, input: ScheduleInput): Promise<{ schedule: ScheduleView; created: boolean }> {
    const now = this.service.clock.now();
    const definition = normalizeSchedule(name, input, now, this.service.defaults);
    const { record, created } = await this.store.put(definition, now);
    this.onChange();
    return { schedule: this.view(record), created };
  }

  async get(name: string): Promise<ScheduleView> {
    const record = await this.store.get(validateScheduleName(name));
    if (!record) throw notFound(name);
    return this.view(record);
  }

  /** The schedule's next `next` ticks and its latest `last` fires with their jobs (newest first). */
  async fires(name: string, counts: { next: number; last: number }): Promise<ScheduleFires & { topic: string }> {
    const record = await this.store.get(validateScheduleName(name));
    if (!record) throw notFound(name);
    const getJob = (id: string) =>
      this.service.get(id).catch((err: unknown) => {
        if (err instanceof DelayqError && err.code === 'E_NOT_FOUND') return undefined;
        throw err;
      });
    return {
      topic: record.topic,
      next: nextFires(record, this.service.clock.now(), counts.next),
      last: await lastFires(record, counts.last, getJob),
    };
  }

  async list(): Promise<ScheduleView[]> {
    return (await this.store.list()).map((record) => this.view(record));
  }

  async delete(name: string): Promise<void> {
    if (!(await this.store.delete(validateScheduleName(name)))) throw notFound(name);
  }

  async setPaused(name: string, paused: boolean): Promise<ScheduleView> {
    const record = await this.store.setPaused(validateScheduleName(name), paused, this.service.clock.now());
    if (!record) throw notFound(name);
    this.onChange();
    return this.view(record);
  }
}

function notFound(name: string): DelayqError {
  return new DelayqError('E_NOT_FOUND', `schedule ${name} does not exist`, { details: { name } });
}
