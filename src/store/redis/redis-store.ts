import type { EpochMs } from '../../core/clock.js';
import { DEFAULTS } from '../../config.js';
import { RedisJobEventLog } from './redis-job-event-log.js';
import { DelayqError, isDelayqError } from '../../core/errors.js';
import { toStoreError, unavailable } from './redis-errors.js';
import { type NewJob, type Reservation } from '../../core/job.js';
import type { Outcome } from '../store.js';
import type {
  PromoteResult,
  PushResult,
  ReserveOptions,
  ReserveResult,
  Store,
  StoreCapabilities,
  StoreWatcher,
} from '../store.js';
import {
  checkEvictionPolicy,
  closeClient,
  createRedisClient,
  parseRedisUrl,
  type RedisClient,
  type RedisConnection,
} from './connection.js';
import {
  DEFAULT_DELAY_BUCKETS,
  DEFAULT_PARTITIONS,
  partitionKeys,
  partitionOf,
  wakeChannel,
  type PartitionKeys,
} from './keys.js';
import { partitionTags, recordPartitions, type PartitionSetting } from './partition-count.js';
import { RedisPusher } from './redis-push.js';
import { RedisTransitions } from './redis-transitions.js';
import { checkLayout, type RedisStoreOptions } from './redis-store-options.js';
import { reserveJobs } from './redis-reserve.js';
import { RedisClock } from './redis-clock.js';
import { RedisTopicPauses } from './redis-extras.js';
import { RedisTopicSettings } from './redis-topic-settings.js';
import { pushClaiming } from '../dedup-claims.js';
import { RedisDedupClaims } from './redis-dedup-claims.js';
import { RedisDispatchRates } from './redis-dispatch-rates.js';
import { RedisJobNumbers } from './redis-job-numbers.js';
import { RedisJobSeries } from './redis-job-series.js';
import { RedisConsumerDirectory } from './redis-consumer-directory.js';
import { listJobs, readHistory, readJob, topicStats, type PartitionAccess } from './redis-reads.js';
import { redisDueHistogram } from './redis-due-histogram.js';
import { drainPartitions, listLapsed, nextWakeAt, promoteDue } from './redis-scheduling.js';
import { redrive } from './redis-redrive.js';
import { countReady, peekNext, purgeWithNumbers, reserveJob } from './redis-by-id.js';
import { defineScripts, runScript, type ScriptName } from './scripts.js';
import { registerNode } from './node-registration.js';
import { WakeBus } from './wake-bus.js';
import { NoticeFanout, type StoreNoticeListener } from '../store-notices.js';
import { persistenceWarnings } from './persistence-check.js';
import { ResetMarker } from './reset-marker.js';
import { FailoverWatch } from './failover-watch.js';
import { followSentinels, type SentinelFollower } from './sentinel-follower.js';
import * as listings from './redis-listings.js';
import * as outcomes from './redis-outcomes.js';
import { bulkBySelector } from '../bulk-by-selector.js';

export type { RedisStoreOptions } from './redis-store-options.js';

/**
 * The shared store: jobs live in Redis, every transition is one Lua script on one partition (one Cluster
 * slot), and several delayq processes hear each other through pub/sub (WakeBus). Reads and writes that span
 * partitions (promote, reserve, stats…) fan out and merge in the client.
 */
export class RedisStore implements Store {
  readonly kind = 'redis';
  readonly capabilities: StoreCapabilities;
  /** Redis's clock, for DelayqService's `clock` option when several processes share this Redis. */
  readonly clock: RedisClock;
  readonly prefix: string;
  /** Known once open: the count recorded with the data, or chosen and recorded (partition-count.ts). */
  partitions: number;
  private readonly partitionSetting: PartitionSetting;
  /** The partitions' hash-tag numbers: partition p's keys are `{prefix:tags[p]}:…` (partition-count.ts). */
  private tags: readonly number[];
  readonly delayBuckets: number;
  private readonly connection: RedisConnection;
  private readonly options: RedisStoreOptions;
  private readonly parts: PartitionKeys[];
  private client: RedisClient | undefined;
  private opening: Promise<void> | undefined;
  private nodeIndex: number[] = [];
  private readonly nodeNames = new Map<string, string>();
  private readonly bus: WakeBus;
  private readonly pusher: RedisPusher;
  private readonly transitions: RedisTransitions;
  private reserveStart = 0;
  /** The read side's view of this store (redis-reads.ts). */
  private readonly access: PartitionAccess;
  readonly pauses = new RedisTopicPauses(
    (fn) => this.guard(fn),
    () => this.prefix,
  );
  readonly topicSettings = new RedisTopicSettings(
    (fn) => this.guard(fn),
    () => this.prefix,
  );
  readonly dispatchRates = new RedisDispatchRates(
    (fn) => this.guard(fn),
    () => this.prefix,
  );
  /** Claims of topics' dedup keys (store/dedup-claims.ts), taken before the job is pushed. */
  private readonly dedupClaims = new RedisDedupClaims(
    (fn) => this.guard(fn),
    () => this.prefix,
  );
  readonly numbers = new RedisJobNumbers(
    (fn) => this.guard(fn),
    () => this.prefix,
    () => this.clock.now(),
  );
  readonly series = new RedisJobSeries(
    (fn) => this.guard(fn),
    () => this.prefix,
  );
  readonly consumers = new RedisConsumerDirectory(
    (fn) => this.guard(fn),
    () => this.prefix,
  );
  private readonly noticeFanout = new NoticeFanout();
  readonly jobEvents: RedisJobEventLog;
  private readonly marker: ResetMarker;
  private readonly failovers: FailoverWatch;
  private follower: SentinelFollower | undefined;

  constructor(options: RedisStoreOptions) {
    const parsed = options.url === undefined ? undefined : parseRedisUrl(options.url);
    const connection = options.connection ?? parsed?.connection;
    if (!connection) throw new DelayqError('E_CONFIG', 'redis: give a url or a connection', { field: 'redis.url' });
    this.connection = connection;
    this.options = options;
    this.prefix = options.prefix ?? parsed?.prefix ?? DEFAULTS.redis.prefix;
    this.partitionSetting = options.partitions ?? parsed?.partitions ?? DEFAULT_PARTITIONS;
    this.partitions = this.partitionSetting === 'auto' ? DEFAULT_PARTITIONS : this.partitionSetting;
    this.delayBuckets = options.delayBuckets ?? DEFAULT_DELAY_BUCKETS;
    checkLayout(this);
    // reserve visits only partitions with ready jobs unless there is one (reserve.lua takes due ones there).
    // Groups are counted in keys beside the partitions (lua/record.lua), which a script reaches only when every
    // partition is on one master: not on a Cluster.
    this.capabilities = {
      shared: true,
      journaled: false,
      // Fixed before open: 'auto' counts as several here (the backend passes 'auto' only on a Cluster, never 1
      // partition there); a store built with 'auto' on one server gets 1 at open and keeps the promoting path.
      reserveTakesDue: this.partitions === 1,
      groups: connection.mode !== 'cluster',
    };
    this.tags = Array.from({ length: this.partitions }, (_, p) => p);
    this.parts = this.tags.map((tag) => partitionKeys(this.prefix, tag));
    this.clock = new RedisClock(() => this.client);
    this.bus = new WakeBus(() => this.client, wakeChannel(this.prefix));
    // XREAD blocks well inside the command timeout, so a wait for events never counts as a dead connection.
    this.jobEvents = new RedisJobEventLog(
      () => this.client,
      `{${this.prefix}:events}`,
      options.eventsMaxLength ?? DEFAULTS.events.maxLength,
      Math.max(50, Math.floor((options.commandTimeoutMs ?? DEFAULTS.redis.commandTimeoutMs) / 2)),
    );
    // After a wipe the node names are gone too: register again, so history names the right nodes.
    this.marker = new ResetMarker(
      () => this.parts.map((k) => k.marker),
      () => this.client,
      () => this.clock.now(),
      this.noticeFanout,
      () => this.registerNode(this.conn),
    );
    this.failovers = new FailoverWatch(
      () => this.client,
      () => this.clock.now(),
      this.noticeFanout,
    );
    this.access = {
      parts: this.parts,
      part: (id) => this.part(id),
      run: (name, p, args, buffers) => this.run(name, p, args, buffers),
      guard: (fn) => this.guard(fn),
      all: (fn) => this.all(fn),
      nodeIndex: (p) => this.nodeIndex[p]!,
      madeReady: (topics) => this.bus.ready(topics),
    };
    this.pusher = new RedisPusher(this.access, this.delayBuckets, (at) => this.bus.due(at));
    this.transitions = new RedisTransitions(this.access, this.bus, () => this.client !== undefined);
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
      commandTimeoutMs: this.options.commandTimeoutMs ?? DEFAULTS.redis.commandTimeoutMs,
      connectTimeoutMs: this.options.connectTimeoutMs ?? DEFAULTS.redis.connectTimeoutMs,
    });
    // Errors surface on the calls (E_STORE_UNAVAILABLE); the event only stops ioredis printing them.
    client.on('error', () => undefined);
    this.client = client;
    this.follower = followSentinels(this.connection, client);
    await client.connect();
    await checkEvictionPolicy(client);
    for (const warning of await persistenceWarnings(client)) this.noticeFanout.onWarning(warning);
    defineScripts(client);
    this.usePartitions(await partitionTags(client, this.prefix, this.partitionSetting));
    await this.registerNode(client);
    await this.clock.sync();
    this.clock.start();
    await this.marker.open(client);
    await this.failovers.open();
    // After a reconnect the server may be another one (failover) or a restarted one without its data:
    // register the node name again and re-sample the clock offset.
    client.on('ready', () => {
      void this.registerNode(client).catch(() => undefined);
      void this.clock.sync().catch(() => undefined);
      void this.marker.check().catch(() => undefined);
      void this.failovers.check().catch(() => undefined);
    });
  }

  /** The partitions the data is written in (their hash tags); `parts` changes in place, as the helpers hold it. */
  private usePartitions(tags: readonly number[]): void {
    this.partitions = tags.length;
    this.tags = tags;
    this.parts.splice(0, this.parts.length, ...tags.map((tag) => partitionKeys(this.prefix, tag)));
  }

  private async registerNode(client: RedisClient): Promise<void> {
    this.nodeIndex = await registerNode(client, this.parts, this.options.nodeId, this.prefix);
    // After a wipe the record of the partitions is gone with the data: written again by the processes that use them.
    await recordPartitions(client, this.prefix, this.tags);
  }

  async close(): Promise<void> {
    const client = this.client;
    if (!client) return;
    await this.opening?.catch(() => undefined);
    this.clock.stop();
    this.marker.close();
    this.failovers.close();
    this.follower?.stop();
    await this.bus.close();
    this.jobEvents.close();
    this.client = undefined;
    this.opening = undefined;
    await closeClient(client);
  }

  notices(listener: StoreNoticeListener): void {
    this.noticeFanout.add(listener);
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
  private async run(
    name: ScriptName,
    partition: number,
    args: readonly (string | number | Buffer)[],
    buffers = false,
  ): Promise<unknown> {
    const k = this.parts[partition]!;
    try {
      const reply = await runScript(this.conn, name, k.scriptKeys, [k.topicPrefix, ...args], buffers);
      this.failovers.wrote();
      return reply;
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
    return this.partitions === 1 ? 0 : partitionOf(id, this.partitions);
  }

  private all<T>(fn: (p: number) => Promise<T>): Promise<T[]> {
    return Promise.all(this.parts.map((_, p) => fn(p)));
  }

  // ---- producers

  pushMany(jobs: readonly NewJob[], now: EpochMs): Promise<PushResult[]> {
    if (!this.client) throw new DelayqError('E_STORE_UNAVAILABLE', 'the Redis store is not open');
    const push = (some: readonly NewJob[]): Promise<PushResult[]> => this.pusher.pushMany(some, now);
    return pushClaiming(this.dedupClaims, jobs, now, push, (id) => this.get(id));
  }

  /** The transitions of one job by id (redis-transitions.ts). */
  cancel: Store['cancel'] = (id, now, params) => this.transitions.cancel(id, now, params);
  reschedule: Store['reschedule'] = (id, runAt, now) => this.transitions.reschedule(id, runAt, now);
  runNow: Store['runNow'] = (id, now) => this.transitions.runNow(id, now);

  // ---- consumers

  /** Partitions are visited from a rotating start (redis-reserve.ts). */
  reserve(
    topics: readonly string[],
    count: number,
    now: EpochMs,
    options: ReserveOptions = {},
  ): Promise<ReserveResult> {
    return reserveJobs(this.access, topics, count, now, options, this.reserveStart++ % this.partitions);
  }

  restoreReservation: Store['restoreReservation'] = (id, kept, now, replacing) =>
    this.transitions.restoreReservation(id, kept, now, replacing);
  touch: Store['touch'] = (id, token, now, ttrMs) => this.transitions.touch(id, token, now, ttrMs);
  /** Batched: the finishes of one event-loop turn share one script call per partition. */
  finish: Store['finish'] = (id, token, now) => this.transitions.finish(id, token, now);
  /** The finishes of one call share the batcher's one script call per partition, as concurrent finishes do. */
  finishMany: Store['finishMany'] = (items, now) => Promise.all(items.map((f) => this.finish(f.id, f.token, now)));
  retry: Store['retry'] = (id, token, now, params) => this.transitions.retry(id, token, now, params);
  bury: Store['bury'] = (id, token, now, params) => this.transitions.bury(id, token, now, params);
  release: Store['release'] = (id, token, now, params) => this.transitions.release(id, token, now, params);

  reserveJob(id: string, now: EpochMs, options?: ReserveOptions): Promise<Outcome<Reservation>> {
    return reserveJob(this.access, (i, reply) => this.transitions.outcome(i, reply), id, now, options);
  }

  redrive: Store['redrive'] = (target, now) => redrive(this.access, target, now);

  // ---- the timer's calls (redis-scheduling.ts)

  promoteDue(now: EpochMs, limit: number): Promise<PromoteResult> {
    return promoteDue(this.access, now, limit, this.options.leaveDueToConsumers ?? true);
  }

  listLapsed: Store['listLapsed'] = (now, limit) => listLapsed(this.access, now, limit);
  expireDue: Store['expireDue'] = (now, limit) => drainPartitions(this.access, 'expire', now, limit);
  purge: Store['purge'] = (before, limit) => purgeWithNumbers(this.access, this.numbers, before, limit);
  nextWakeAt: Store['nextWakeAt'] = () => nextWakeAt(this.access);

  // ---- reads (redis-reads.ts)

  get: Store['get'] = (id) => readJob(this.access, id);
  history: Store['history'] = (id) => readHistory(this.access, id);
  list: Store['list'] = (query) => listJobs(this.access, query);
  peekNext: Store['peekNext'] = (topic, state) => peekNext(this.access, topic, state);
  countReady: Store['countReady'] = (topic, belowPriority) => countReady(this.access, topic, belowPriority);
  stats: Store['stats'] = () => topicStats(this.access);

  // ---- outcomes and retention (redis-outcomes.ts), bulk by selector (store/bulk-by-selector.ts), listings (redis-listings.ts)
  recordOutcome: Store['recordOutcome'] = (id, token, o, now) => outcomes.recordOutcome(this.access, id, token, o, now);
  outcomeOf: Store['outcomeOf'] = (id) => outcomes.outcomeOf(this.access, id);
  setRetentionMany: Store['setRetentionMany'] = (ids, r, now) => outcomes.setRetentionMany(this.access, ids, r, now);
  purgeRetained: Store['purgeRetained'] = (now, limit) => outcomes.purgeRetained(this.access, now, limit);
  deleteEndedMany: Store['deleteEndedMany'] = (ids) => outcomes.deleteEndedMany(this.access, ids);
  bulk: Store['bulk'] = (request, now) => bulkBySelector(this, request, now);
  listDue: Store['listDue'] = (query) => listings.listDue(this.access, query);
  listReserved: Store['listReserved'] = (query) => listings.listReserved(this.access, query);
  dueHistogram: Store['dueHistogram'] = (query) => redisDueHistogram(this.access, query);
}
