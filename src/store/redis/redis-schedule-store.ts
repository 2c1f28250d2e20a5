import type { Cluster, Redis } from 'ioredis';
import type { EpochMs } from '../../core/clock.js';
import { DelayqError } from '../../core/errors.js';
import { closeClient } from './connection.js';
import type { ScheduleDefinition, ScheduleRecord } from '../../core/schedule.js';
import {
  movedRecord,
  newRecord,
  pausedRecord,
  replacedRecord,
  scheduleNameTaken,
  type CursorMove,
  type ScheduleGuard,
  type ScheduleStore,
} from '../schedule-store.js';
import { SCHEDULE_CAS_SCRIPT, scheduleHashKey } from './redis-schedule-keys.js';

type ScheduleRedis = (Redis | Cluster) & {
  scheduleCas(key: string, name: string, revision: string, cursorAt: string, record: string): Promise<number>;
};

export interface RedisScheduleStoreOptions {
  /** Builds the (lazyConnect) client; the composition root passes the store's Sentinel/Cluster-aware factory. */
  connect: () => Redis | Cluster;
  /** The job store's key prefix. */
  prefix: string;
}

const MAX_CAS_TRIES = 20;

/**
 * Schedules in one Redis hash, shared by every instance on the Redis. Every write is a compare-and-set
 * on (revision, cursor) in a script, so operator changes and runner moves never overwrite each other.
 */
export class RedisScheduleStore implements ScheduleStore {
  private readonly options: RedisScheduleStoreOptions;
  private readonly key: string;
  private redis: ScheduleRedis | undefined;

  constructor(options: RedisScheduleStoreOptions) {
    this.options = options;
    this.key = scheduleHashKey(options.prefix);
  }

  async open(): Promise<void> {
    if (this.redis) return;
    const redis = this.options.connect();
    redis.on('error', () => undefined); // each call reports its own failure
    redis.defineCommand('scheduleCas', { numberOfKeys: 1, lua: SCHEDULE_CAS_SCRIPT });
    try {
      await redis.connect();
    } catch (err) {
      redis.disconnect();
      throw new DelayqError('E_STORE_UNAVAILABLE', `cannot reach Redis for schedules: ${(err as Error).message}`, {
        cause: err,
      });
    }
    this.redis = redis as ScheduleRedis;
  }

  async close(): Promise<void> {
    const redis = this.redis;
    this.redis = undefined;
    if (redis) await closeClient(redis);
  }

  private async call<T>(work: (redis: ScheduleRedis) => Promise<T>): Promise<T> {
    if (!this.redis) throw new DelayqError('E_STORE_UNAVAILABLE', 'the Redis schedule store is not open');
    try {
      return await work(this.redis);
    } catch (err) {
      if (err instanceof DelayqError) throw err;
      throw new DelayqError('E_STORE_UNAVAILABLE', `Redis schedules: ${(err as Error).message}`, { cause: err });
    }
  }

  private async cas(name: string, expected: ScheduleRecord | null, next: ScheduleRecord | null): Promise<boolean> {
    const revision = expected ? String(expected.revision) : '0';
    const cursorAt = expected ? String(expected.cursorAt) : '0';
    const written = await this.call((r) =>
      r.scheduleCas(this.key, name, revision, cursorAt, next ? JSON.stringify(next) : ''),
    );
    return written === 1;
  }

  /** Read, change, compare-and-set; again when another writer got there first. */
  private async update<T>(
    name: string,
    change: (old: ScheduleRecord | null) => { next: ScheduleRecord | null; result: T },
  ): Promise<T> {
    for (let attempt = 0; attempt < MAX_CAS_TRIES; attempt++) {
      const old = await this.get(name);
      const { next, result } = change(old);
      if (next === old || (await this.cas(name, old, next))) return result;
    }
    throw new DelayqError('E_STORE_UNAVAILABLE', `schedule ${name}: too many concurrent writers, try again`);
  }

  put(
    definition: ScheduleDefinition,
    now: EpochMs,
    guard?: ScheduleGuard,
  ): Promise<{ record: ScheduleRecord; created: boolean }> {
    return this.update(definition.name, (old) => {
      if (old && guard && !guard(old)) throw scheduleNameTaken(definition.name);
      const record = old ? replacedRecord(old, definition, now) : newRecord(definition, now);
      return { next: record, result: { record, created: !old } };
    });
  }

  async get(name: string): Promise<ScheduleRecord | null> {
    const value = await this.call((r) => r.hget(this.key, name));
    return value === null ? null : (JSON.parse(value) as ScheduleRecord);
  }

  async list(): Promise<ScheduleRecord[]> {
    const all = await this.call((r) => r.hgetall(this.key));
    return Object.values(all)
      .map((value) => JSON.parse(value) as ScheduleRecord)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async delete(name: string, guard?: ScheduleGuard): Promise<boolean> {
    if (!guard) return (await this.call((r) => r.hdel(this.key, name))) > 0;
    // Compare-and-set to nothing: the record the guard accepted is the one deleted.
    return this.update(name, (old) =>
      old && guard(old) ? { next: null, result: true } : { next: old, result: false },
    );
  }

  setPaused(name: string, paused: boolean, now: EpochMs, guard?: ScheduleGuard): Promise<ScheduleRecord | null> {
    return this.update(name, (old) => {
      if (old && guard && !guard(old)) return { next: old, result: null };
      const record = old && pausedRecord(old, paused, now);
      return { next: record, result: record };
    });
  }

  /** Each move is computed from the record the runner read: (revision, cursor) pins every other field. */
  async moveCursors(moves: readonly CursorMove[], now: EpochMs): Promise<boolean[]> {
    return this.call(async (r) => {
      const pipeline = r.pipeline() as ReturnType<Redis['pipeline']> & { scheduleCas: ScheduleRedis['scheduleCas'] };
      const snapshot = await this.recordsOf(moves.map((m) => m.name));
      const planned = moves.map((move, i) => {
        const old = snapshot[i];
        const record = old ? movedRecord(old, move, now) : null;
        if (record)
          pipeline.scheduleCas(
            this.key,
            move.name,
            String(move.revision),
            String(move.fromCursorAt),
            JSON.stringify(record),
          );
        return record !== null;
      });
      const replies = planned.some(Boolean) ? ((await pipeline.exec()) ?? []) : [];
      let reply = 0;
      return planned.map((was) => was && Number(replies[reply++]?.[1]) === 1);
    });
  }

  restore(record: ScheduleRecord): Promise<boolean> {
    return this.cas(record.name, null, record);
  }

  private async recordsOf(names: string[]): Promise<(ScheduleRecord | null)[]> {
    if (!names.length) return [];
    const values = await this.call((r) => r.hmget(this.key, ...names));
    return values.map((v) => (v === null ? null : (JSON.parse(v) as ScheduleRecord)));
  }
}
