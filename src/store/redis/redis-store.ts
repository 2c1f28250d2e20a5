import type { EpochMs } from '../../core/clock.js';
import { DelayqError, isDelayqError } from '../../core/errors.js';
import { toStoreError, unavailable } from './redis-errors.js';
import { newToken } from '../../core/ids.js';
import { emptyCounts, JOB_STATES, type HistoryEntry, type Job, type NewJob, type Reservation, type TopicStats } from '../../core/job.js';
import { OUTCOME_CODES, refusal } from '../outcome-codes.js';
import {
  ok,
  type JobPage,
  type JobQuery,
  type LapsedReservation,
  type Outcome,
  type PromoteResult,
  type PushResult,
  type RedriveTarget,
  type ReserveOptions,
  type StoreCapabilities,
  type StoreWatcher,
  type WatchableStore,
} from '../store.js';
import { checkEvictionPolicy, createRedisClient, parseRedisUrl, type RedisClient, type RedisConnection } from './connection.js';
import { compareReadyOrder, decodeRetry, encodeRetry, newJobView, NULL_ARG, recordHistory, recordToJob, recordToken, stateCode, stateOf, type RecordArray } from './job-record.js';
import { bucketOf, DEFAULT_DELAY_BUCKETS, DEFAULT_PARTITIONS, DEFAULT_PREFIX, partitionKeys, partitionOf, PREFIX_RE, wakeChannel, type PartitionKeys } from './keys.js';
import { PushBatcher, type PushEntry } from './push-batcher.js';
import { RedisClock } from './redis-clock.js';
import { defineScripts, runScript, type ScriptName } from './scripts.js';
import { WakeBus } from './wake-bus.js';

export interface RedisStoreOptions {
  /** `redis://…`, `redis-sentinel://…` or `redis-cluster://…` (see parseRedisUrl); or give `connection`. */
  url?: string;
  connection?: RedisConnection;
  /** Name of this process in job history. */
  nodeId: string;
  /** Key prefix; several stores can share one Redis under different prefixes. @defaultValue dq */
  prefix?: string;
  /** Partitions (hash-tag buckets) a topic is spread over; fixed for the life of the data. @defaultValue 8 */
  partitions?: number;
  /** Delayed sets per topic and partition (see keys.ts); fixed for the life of the data. @defaultValue 128 */
  delayBuckets?: number;
  /** @defaultValue 2000 */
  commandTimeoutMs?: number;
  /** @defaultValue 2000 */
  connectTimeoutMs?: number;
}

const nul = (v: string | null | undefined): string => v ?? NULL_ARG;

/**
 * The shared store: jobs live in Redis, every transition is one Lua script on one partition (one Cluster
 * slot), and several delayq processes hear each other through pub/sub (WakeBus). Reads and writes that span
 * partitions (promote, reserve, stats…) fan out and merge in the client.
 */
export class RedisStore implements WatchableStore {
  readonly kind = 'redis';
  readonly capabilities: StoreCapabilities = { shared: true, durable: true };
  /** Redis's clock, for DelayqService's `clock` option when several processes share this Redis. */
  readonly clock: RedisClock;
  readonly prefix: string;
  readonly partitions: number;
  readonly delayBuckets: number;
  private readonly connection: RedisConnection;
  private readonly options: RedisStoreOptions;
  private readonly parts: PartitionKeys[];
  private client: RedisClient | undefined;
  private opening: Promise<void> | undefined;
  private nodeIndex: number[] = [];
  private readonly nodeNames = new Map<string, string>();
  private readonly bus: WakeBus;
  private readonly batcher: PushBatcher;
  private reserveStart = 0;

  constructor(options: RedisStoreOptions) {
    const parsed = options.url === undefined ? undefined : parseRedisUrl(options.url);
    const connection = options.connection ?? parsed?.connection;
    if (!connection) throw new DelayqError('E_CONFIG', 'redis: give a url or a connection', { field: 'redis.url' });
    this.connection = connection;
    this.options = options;
    this.prefix = options.prefix ?? parsed?.prefix ?? DEFAULT_PREFIX;
    this.partitions = options.partitions ?? parsed?.partitions ?? DEFAULT_PARTITIONS;
    this.delayBuckets = options.delayBuckets ?? DEFAULT_DELAY_BUCKETS;
    if (!Number.isInteger(this.delayBuckets) || this.delayBuckets < 1 || this.delayBuckets > 65_536) {
      throw new DelayqError('E_CONFIG', 'redis.delayBuckets: an integer from 1 to 65536', { field: 'redis.delayBuckets' });
    }
    if (!PREFIX_RE.test(this.prefix)) throw new DelayqError('E_CONFIG', 'redis.prefix: 1–64 of letters, digits, . _ : -', { field: 'redis.prefix' });
    if (!Number.isInteger(this.partitions) || this.partitions < 1 || this.partitions > 1024) {
      throw new DelayqError('E_CONFIG', 'redis.partitions: an integer from 1 to 1024', { field: 'redis.partitions' });
    }
    this.parts = Array.from({ length: this.partitions }, (_, p) => partitionKeys(this.prefix, p));
    this.clock = new RedisClock(() => this.client);
    this.bus = new WakeBus(() => this.client, wakeChannel(this.prefix));
    this.batcher = new PushBatcher((p, entries) => this.pushPartition(p, entries));
  }

  open(): Promise<void> {
    this.opening ??= this.connect().catch((err: unknown) => {
      this.opening = undefined;
      const client = this.client;
      this.client = undefined;
      client?.disconnect();
      throw isDelayqError(err) ? err : unavailable(err);
    });
    return this.opening;
  }

  private async connect(): Promise<void> {
    const client = createRedisClient(this.connection, {
      commandTimeoutMs: this.options.commandTimeoutMs ?? 2000,
      connectTimeoutMs: this.options.connectTimeoutMs ?? 2000,
    });
    // Errors surface on the calls (E_STORE_UNAVAILABLE); the event only stops ioredis printing them.
    client.on('error', () => undefined);
    this.client = client;
    await client.connect();
    await checkEvictionPolicy(client);
    defineScripts(client);
    await this.registerNode(client);
    await this.clock.sync();
    this.clock.start();
    // After a reconnect the server may be another one (failover) or a restarted one without its data:
    // register the node name again and re-sample the clock offset.
    client.on('ready', () => {
      void this.registerNode(client).catch(() => undefined);
      void this.clock.sync().catch(() => undefined);
    });
  }

  private async registerNode(client: RedisClient): Promise<void> {
    this.nodeIndex = await Promise.all(
      this.parts.map(async (k) => Number(await runScript(client, 'register-node', [k.nodes], [this.options.nodeId]))),
    );
  }

  async close(): Promise<void> {
    const client = this.client;
    if (!client) return;
    await this.opening?.catch(() => undefined);
    this.clock.stop();
    await this.bus.close();
    this.client = undefined;
    this.opening = undefined;
    await client.quit().catch(() => client.disconnect());
  }

  watch(watcher: StoreWatcher): void {
    const client = this.client;
    if (!client) throw new DelayqError('E_STORE_UNAVAILABLE', 'the Redis store is not open');
    const subscriber = (client as { duplicate(): RedisClient }).duplicate();
    void this.bus.watch(subscriber, watcher).catch(() => undefined);
  }

  private get conn(): RedisClient {
    if (!this.client) throw new DelayqError('E_STORE_UNAVAILABLE', 'the Redis store is not open');
    return this.client;
  }

  /** Runs a script on one partition; infrastructure errors become E_STORE_UNAVAILABLE. */
  private async run(name: ScriptName, partition: number, args: readonly (string | number)[]): Promise<unknown> {
    const k = this.parts[partition]!;
    try {
      return await runScript(this.conn, name, k.scriptKeys, [k.topicPrefix, ...args]);
    } catch (err) {
      throw toStoreError(err);
    }
  }

  private async guard<T>(fn: (client: RedisClient) => Promise<T>): Promise<T> {
    try {
      return await fn(this.conn);
    } catch (err) {
      throw toStoreError(err);
    }
  }

  private part(id: string): number {
    return partitionOf(id, this.partitions);
  }

  private all<T>(fn: (p: number) => Promise<T>): Promise<T[]> {
    return Promise.all(this.parts.map((_, p) => fn(p)));
  }

  // ---- producers

  async push(jobs: readonly NewJob[], now: EpochMs): Promise<PushResult[]> {
    if (!this.client) throw new DelayqError('E_STORE_UNAVAILABLE', 'the Redis store is not open');
    const replies = await Promise.all(jobs.map((job) => this.batcher.add(this.part(job.id), job, now)));
    const readyTopics = new Set<string>();
    const results = replies.map((reply, i): PushResult => {
      const job = jobs[i]!;
      if (reply === 1) {
        const ready = job.runAt <= now;
        if (ready) readyTopics.add(job.topic);
        return { created: true, job: newJobView(job, now, ready) };
      }
      return { created: false, job: recordToJob(job.id, reply as RecordArray) };
    });
    if (readyTopics.size) this.bus.ready(readyTopics);
    return results;
  }

  private async pushPartition(partition: number, entries: PushEntry[]): Promise<unknown[]> {
    const args: (string | number)[] = [this.nodeIndex[partition]!, entries.length];
    for (const { job, now } of entries) {
      args.push(job.id, job.topic, nul(job.tag), nul(job.bizKey), job.body, job.runAt, job.priority, job.ttrMs, job.ttlMs ?? '', encodeRetry(job.retry), now, bucketOf(job.id, this.partitions, this.delayBuckets));
    }
    const [newHeadAt, ...replies] = (await this.run('push', partition, args)) as [number | null, ...unknown[]];
    if (newHeadAt !== null) this.bus.due(Number(newHeadAt));
    return replies;
  }

  /** Maps a single-job script reply ({0, record} or {code, state}) to an Outcome, telling peers of wake-ups. */
  private outcome(id: string, reply: unknown): Outcome<Job> {
    const [code, payload] = reply as [number, unknown];
    if (code !== OUTCOME_CODES.ok) return refusal(code, payload === null || payload === undefined ? undefined : stateOf(Number(payload)));
    const job = recordToJob(id, payload as RecordArray);
    if (job.state === 'ready') this.bus.ready([job.topic]);
    else if (job.state === 'delayed') this.bus.due(job.runAt);
    return ok(job);
  }

  async cancel(id: string, now: EpochMs, reason?: string): Promise<Outcome<Job>> {
    return this.outcome(id, await this.run('cancel', this.part(id), [id, now, this.nodeIndex[this.part(id)]!, nul(reason)]));
  }

  async reschedule(id: string, runAt: EpochMs, now: EpochMs): Promise<Outcome<Job>> {
    return this.outcome(id, await this.run('reschedule', this.part(id), [id, runAt, now, this.nodeIndex[this.part(id)]!]));
  }

  // ---- consumers

  /**
   * Partitions are visited from a rotating start; each call takes what a partition has, until `count`.
   * Within one call the jobs come back in (runAt, priority, id) order; across partitions the order is that
   * of each partition's head, so a job may overtake a slightly earlier one of another partition.
   */
  async reserve(topics: readonly string[], count: number, now: EpochMs, options: ReserveOptions = {}): Promise<Reservation[]> {
    topics = [...new Set(topics)];
    if (topics.length === 0 || count <= 0) return [];
    const start = this.reserveStart++ % this.partitions;
    const order = this.parts.map((_, i) => (start + i) % this.partitions);
    // One pipelined look at how many jobs each partition holds, then scripts only where there are some.
    const sizes = await this.guard((c) =>
      Promise.all(order.map((p) => Promise.all(topics.map((t) => c.zcard(this.parts[p]!.ready(t)))).then((n) => n.reduce((a, b) => a + b, 0)))),
    );
    const taken: Reservation[] = [];
    let wanted = count;
    const calls: Promise<void>[] = [];
    order.forEach((p, i) => {
      const take = Math.min(wanted, sizes[i]!);
      if (take <= 0) return;
      wanted -= take;
      const tokens = Array.from({ length: take }, () => newToken());
      const args = [now, take, options.ttrMs ?? '', this.nodeIndex[p]!, topics.length, ...topics, ...tokens];
      calls.push(
        this.run('reserve', p, args).then((reply) => {
          const flat = reply as unknown[];
          for (let k = 0; k < flat.length; k += 2) {
            const record = flat[k + 1] as RecordArray;
            const job = recordToJob(String(flat[k]), record);
            taken.push({ job, token: recordToken(record)!, deadlineAt: job.deadlineAt! });
          }
        }),
      );
    });
    await Promise.all(calls);
    return taken.sort((a, b) => compareReadyOrder(a.job, b.job));
  }

  private fenced(name: ScriptName, id: string, args: (string | number)[]): Promise<Outcome<Job>> {
    return this.run(name, this.part(id), [id, ...args]).then((reply) => this.outcome(id, reply));
  }

  touch(id: string, token: string, now: EpochMs, ttrMs?: number): Promise<Outcome<Job>> {
    return this.fenced('touch', id, [token, now, ttrMs ?? '']);
  }

  finish(id: string, token: string, now: EpochMs): Promise<Outcome<Job>> {
    return this.fenced('finish', id, [token, now, this.nodeIndex[this.part(id)]!]);
  }

  retry(id: string, token: string, runAt: EpochMs, now: EpochMs, error: string | null): Promise<Outcome<Job>> {
    return this.fenced('retry', id, [token, runAt, now, this.nodeIndex[this.part(id)]!, nul(error)]);
  }

  bury(id: string, token: string, now: EpochMs, error: string | null): Promise<Outcome<Job>> {
    return this.fenced('bury', id, [token, now, this.nodeIndex[this.part(id)]!, nul(error)]);
  }

  release(id: string, token: string, now: EpochMs): Promise<Outcome<Job>> {
    return this.fenced('release', id, [token, now, this.nodeIndex[this.part(id)]!]);
  }

  async redrive(target: RedriveTarget, now: EpochMs): Promise<number> {
    const ids = 'ids' in target ? [...target.ids] : await this.oldestDead(target.topic, target.limit);
    const byPartition = new Map<number, string[]>();
    for (const id of ids) {
      const p = this.part(id);
      byPartition.set(p, [...(byPartition.get(p) ?? []), id]);
    }
    const replies = await Promise.all(
      [...byPartition].map(([p, list]) => this.run('redrive', p, [now, this.nodeIndex[p]!, ...list]) as Promise<[number, ...string[]]>),
    );
    const topics = new Set(replies.flatMap(([, ...t]) => t));
    if (topics.size) this.bus.ready(topics);
    return replies.reduce((sum, [n]) => sum + Number(n), 0);
  }

  /** The topic's `limit` oldest dead jobs over all partitions (by finishedAt, then id). */
  private async oldestDead(topic: string, limit: number): Promise<string[]> {
    const heads = await this.guard((c) => this.all((p) => c.zrange(this.parts[p]!.dead(topic), 0, String(limit - 1), 'WITHSCORES')));
    const entries: { id: string; at: number }[] = [];
    for (const flat of heads) for (let i = 0; i < flat.length; i += 2) entries.push({ id: flat[i]!, at: Number(flat[i + 1]) });
    entries.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1));
    return entries.slice(0, limit).map((e) => e.id);
  }

  // ---- the scheduler

  /**
   * Exact earliest-first over all partitions in two steps: each partition reports the due times of its
   * first `limit` due jobs, the client finds how many each partition must promote so that together they
   * are the `limit` earliest, then each promotes that many. A peer promoting at the same time only makes
   * the second step find fewer: a job is promoted once because the script re-checks under Redis's lock.
   */
  async promoteDue(now: EpochMs, limit: number): Promise<PromoteResult> {
    const scores = (await this.all((p) => this.run('due-scores', p, [now, limit]))) as number[][];
    const merged = scores.flatMap((list, p) => list.map((at) => ({ at: Number(at), p }))).sort((a, b) => a.at - b.at || a.p - b.p);
    const quota = new Map<number, number>();
    for (const { p } of merged.slice(0, limit)) quota.set(p, (quota.get(p) ?? 0) + 1);
    const replies = await Promise.all(
      [...quota].map(([p, n]) => this.run('promote', p, [now, n, this.nodeIndex[p]!]) as Promise<[number, ...string[]]>),
    );
    const topics = new Set(replies.flatMap(([, ...t]) => t));
    if (topics.size) this.bus.ready(topics);
    return { count: replies.reduce((sum, [n]) => sum + Number(n), 0), topics: [...topics] };
  }

  async listLapsed(now: EpochMs, limit: number): Promise<LapsedReservation[]> {
    const replies = (await this.all((p) => this.run('lapsed', p, [now, limit]))) as unknown[][];
    const lapsed: LapsedReservation[] = [];
    for (const flat of replies) {
      for (let i = 0; i < flat.length; i += 6) {
        lapsed.push({
          id: String(flat[i]),
          topic: String(flat[i + 1]),
          token: String(flat[i + 2]),
          attempts: Number(flat[i + 3]),
          deadlineAt: Number(flat[i + 4]),
          retry: decodeRetry(String(flat[i + 5])),
        });
      }
    }
    return lapsed.sort((a, b) => a.deadlineAt - b.deadlineAt).slice(0, limit);
  }

  /** Partitions one after another, each with what is left of `limit`, so the total never exceeds it. */
  private async drain(name: 'expire' | 'purge', at: EpochMs, limit: number, withNode: boolean): Promise<number> {
    let done = 0;
    for (let p = 0; p < this.partitions && done < limit; p++) {
      const args = withNode ? [at, limit - done, this.nodeIndex[p]!] : [at, limit - done];
      done += Number(await this.run(name, p, args));
    }
    return done;
  }

  expireDue(now: EpochMs, limit: number): Promise<number> {
    return this.drain('expire', now, limit, true);
  }

  purge(before: EpochMs, limit: number): Promise<number> {
    return this.drain('purge', before, limit, false);
  }

  async nextWakeAt(): Promise<EpochMs | null> {
    const heads = await this.guard((c) =>
      this.all((p) => {
        const k = this.parts[p]!;
        return Promise.all([k.dueIndex, k.reserved, k.expiry].map((key) => c.zrange(key, 0, '0', 'WITHSCORES')));
      }),
    );
    let earliest: number | null = null;
    for (const partition of heads) {
      for (const [, score] of partition) {
        if (score !== undefined && (earliest === null || Number(score) < earliest)) earliest = Number(score);
      }
    }
    return earliest;
  }

  // ---- reads

  async get(id: string): Promise<Job | null> {
    const record = (await this.run('get', this.part(id), [id])) as RecordArray | null;
    return record ? recordToJob(id, record) : null;
  }

  async history(id: string): Promise<HistoryEntry[]> {
    const p = this.part(id);
    const record = (await this.run('get', p, [id])) as RecordArray | null;
    if (!record) return [];
    const names = await this.guard((c) => c.hgetall(this.parts[p]!.nodes));
    return recordHistory(record, (index) => names[`#${index}`] ?? `node#${index}`);
  }

  /** Each partition returns its first limit+1 matches after the cursor; the merge keeps the first `limit`. */
  async list(query: JobQuery): Promise<JobPage> {
    const args = [nul(query.topic), query.state ? stateCode(query.state) : 0, nul(query.bizKey), nul(query.tag), query.cursor ?? '', '', query.limit];
    const replies = (await this.all((p) => this.run('list', p, args))) as unknown[][];
    const jobs: Job[] = [];
    for (const flat of replies) for (let i = 0; i < flat.length; i += 2) jobs.push(recordToJob(String(flat[i]), flat[i + 1] as RecordArray));
    jobs.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const page = jobs.slice(0, query.limit);
    return { jobs: page, next: jobs.length > query.limit ? page[page.length - 1]!.id : null };
  }

  /** O(partitions × topics): the scripts keep per-topic, per-state counters; due heads come from the index. */
  async stats(): Promise<TopicStats[]> {
    const replies = await this.guard((c) =>
      this.all((p) => Promise.all([c.hgetall(this.parts[p]!.counts), c.zrange(this.parts[p]!.dueIndex, 0, '-1', 'WITHSCORES')])),
    );
    const byTopic = new Map<string, TopicStats>();
    const entry = (topic: string): TopicStats => {
      let stats = byTopic.get(topic);
      if (!stats) byTopic.set(topic, (stats = { topic, counts: emptyCounts(), nextDueAt: null }));
      return stats;
    };
    for (const [counts, heads] of replies) {
      for (const [field, n] of Object.entries(counts)) {
        const cut = field.lastIndexOf('|');
        const state = JOB_STATES[Number(field.slice(cut + 1)) - 1];
        if (state) entry(field.slice(0, cut)).counts[state] += Number(n);
      }
      for (let i = 0; i < heads.length; i += 2) {
        const member = heads[i]!; // `<topic>#<bucket>`
        const stats = entry(member.slice(0, member.lastIndexOf('#')));
        const at = Number(heads[i + 1]);
        if (stats.nextDueAt === null || at < stats.nextDueAt) stats.nextDueAt = at;
      }
    }
    return [...byTopic.values()].filter((s) => Object.values(s.counts).some((n) => n > 0)).sort((a, b) => a.topic.localeCompare(b.topic));
  }
}
