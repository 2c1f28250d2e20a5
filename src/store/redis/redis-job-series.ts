import type { EpochMs } from '../../core/clock.js';
import {
  BACKLOG_STATES,
  SERIES_TIERS,
  backlogField,
  slotStart,
  slotTtlMs,
  type JobSeries,
  type SeriesCounts,
  type SeriesQuery,
  type SeriesSlot,
  type TopicBacklog,
} from '../job-series.js';
import type { RedisClient } from './connection.js';

type Guard = <T>(fn: (client: RedisClient) => Promise<T>) => Promise<T>;

/**
 * The series on Redis, outside the partitions, under one hash tag (one Cluster slot of its own):
 *   {prefix:series}:<slotMs>:<slotAt>:t:<topic>  hash  field → count (store/job-series.ts names the fields)
 *   {prefix:series}:<slotMs>:<slotAt>:topics     set   the topics with a hash in that slot
 *   {prefix:series}:claim:<slotAt>               string the process sampling the backlog of that fine slot
 * Each key expires by itself when its tier stops keeping the slot (PEXPIRE, relative, so a process
 * whose clock is off by a little keeps it a little longer or shorter, never forever). A write is one
 * pipeline of HINCRBY and PEXPIRE commands per slot and topic: its cost follows the topics and fields
 * written, never the jobs each count stands for.
 */
export class RedisJobSeries implements JobSeries {
  private readonly guard: Guard;
  private readonly prefix: () => string;

  constructor(guard: Guard, prefix: () => string) {
    this.guard = guard;
    this.prefix = prefix;
  }

  private slotKey(slotMs: number, slotAt: EpochMs): string {
    return `{${this.prefix()}:series}:${slotMs}:${slotAt}`;
  }

  add(items: readonly SeriesCounts[], now: EpochMs): Promise<void> {
    return this.write(now, items, (pipeline, key, counts) => {
      for (const [field, amount] of Object.entries(counts)) pipeline.hincrby(key, field, amount);
    });
  }

  async claimBacklogSample(at: EpochMs): Promise<boolean> {
    const { slotMs } = SERIES_TIERS[0]!;
    const key = `{${this.prefix()}:series}:claim:${slotStart(at, slotMs)}`;
    return (await this.guard((c) => c.set(key, '1', 'PX', 2 * slotMs, 'NX'))) === 'OK';
  }

  setBacklog(at: EpochMs, backlog: readonly TopicBacklog[], now: EpochMs): Promise<void> {
    const items = backlog.map(({ topic, counts }) => ({
      topic,
      at,
      counts: Object.fromEntries(BACKLOG_STATES.map((state) => [backlogField(state), counts[state]])),
    }));
    return this.write(now, items, (pipeline, key, counts) => pipeline.hset(key, counts));
  }

  async read(query: SeriesQuery): Promise<SeriesSlot[]> {
    const starts: EpochMs[] = [];
    for (let at = slotStart(query.from, query.slotMs); at < query.to; at += query.slotMs)
      if (at >= query.from) starts.push(at);
    if (starts.length === 0) return [];
    return this.guard(async (client) => {
      let wanted: { topic: string; at: EpochMs }[];
      if (query.topic !== undefined) {
        wanted = starts.map((at) => ({ topic: query.topic!, at }));
      } else {
        const lists = pipelineResults<string[]>(
          await client.pipeline(starts.map((at) => ['smembers', `${this.slotKey(query.slotMs, at)}:topics`])).exec(),
        );
        wanted = starts.flatMap((at, i) => lists[i]!.map((topic) => ({ topic, at })));
      }
      if (wanted.length === 0) return [];
      const hashes = pipelineResults<Record<string, string>>(
        await client
          .pipeline(wanted.map(({ topic, at }) => ['hgetall', `${this.slotKey(query.slotMs, at)}:t:${topic}`]))
          .exec(),
      );
      const slots: SeriesSlot[] = [];
      wanted.forEach(({ topic, at }, i) => {
        const hash = hashes[i]!;
        const fields = Object.fromEntries(Object.entries(hash).map(([field, value]) => [field, Number(value)]));
        if (Object.keys(fields).length > 0) slots.push({ topic, at, fields });
      });
      return slots;
    });
  }

  /** One pipeline: each item's fields written to its topic's slot of every tier, each key's expiry renewed. */
  private async write(
    now: EpochMs,
    items: readonly SeriesCounts[],
    writeFields: (pipeline: Pipeline, key: string, counts: Readonly<Record<string, number>>) => void,
  ): Promise<void> {
    if (items.length === 0) return;
    await this.guard(async (client) => {
      const pipeline = client.pipeline();
      for (const { topic, at, counts } of items) {
        for (const tier of SERIES_TIERS) {
          const slotAt = slotStart(at, tier.slotMs);
          const slot = this.slotKey(tier.slotMs, slotAt);
          const ttl = slotTtlMs(slotAt, tier, now);
          writeFields(pipeline, `${slot}:t:${topic}`, counts);
          pipeline.pexpire(`${slot}:t:${topic}`, ttl);
          pipeline.sadd(`${slot}:topics`, topic);
          pipeline.pexpire(`${slot}:topics`, ttl);
        }
      }
      pipelineResults(await pipeline.exec());
    });
  }
}

type Pipeline = ReturnType<RedisClient['pipeline']>;

/** A pipeline's replies, or the first error among them (thrown, so the guard maps it). */
function pipelineResults<T>(results: [Error | null, unknown][] | null): T[] {
  if (!results) throw new Error('the Redis pipeline was discarded');
  return results.map(([err, value]) => {
    if (err) throw err;
    return value as T;
  });
}
