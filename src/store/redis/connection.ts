import { Cluster, Redis, type ClusterNode, type RedisOptions } from 'ioredis';
import { DelayqError } from '../../core/errors.js';

export interface HostPort {
  host: string;
  port: number;
}

/** Where the store's Redis is: one server, a Sentinel-watched master, or a Cluster. */
export type RedisConnection =
  | { mode: 'standalone'; host: string; port: number; db: number; username?: string; password?: string }
  | { mode: 'sentinel'; sentinels: HostPort[]; masterName: string; db: number; username?: string; password?: string }
  | { mode: 'cluster'; nodes: HostPort[]; username?: string; password?: string };

export interface ParsedRedisUrl {
  connection: RedisConnection;
  prefix?: string;
  partitions?: number;
}

const field = 'redis.url';
const configError = (message: string): DelayqError => new DelayqError('E_CONFIG', `${field}: ${message}`, { field });

function hostPorts(list: string, defaultPort: number): HostPort[] {
  return list.split(',').map((item) => {
    const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(item.trim());
    if (!match) throw configError(`"${item}" is not host:port`);
    const port = match[2] === undefined ? defaultPort : Number(match[2]);
    if (!Number.isInteger(port) || port < 1 || port > 65_535) throw configError(`bad port in "${item}"`);
    return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
  });
}

/**
 * Parses the one connection string of the Redis store:
 *   redis://[user:pass@]host:port[/db]                 one server
 *   redis-sentinel://[user:pass@]h1:p1,h2:p2/mastername[/db]   Sentinel (the password is the master's)
 *   redis-cluster://[user:pass@]h1:p1,h2:p2             Cluster seed nodes
 * Query parameters `prefix` and `partitions` set the key prefix and the partition count.
 */
export function parseRedisUrl(url: string): ParsedRedisUrl {
  const match = /^(redis|redis-sentinel|redis-cluster):\/\/(?:([^@/]*)@)?([^/?]+)(\/[^?]*)?(?:\?(.*))?$/.exec(url);
  if (!match) throw configError(`expected redis://, redis-sentinel:// or redis-cluster://, got "${url}"`);
  const [, scheme, auth, hosts, path = '', query = ''] = match;
  const credentials: { username?: string; password?: string } = {};
  if (auth) {
    const [user, ...pass] = auth.split(':');
    if (pass.length) credentials.password = decodeURIComponent(pass.join(':'));
    if (user) credentials.username = decodeURIComponent(user);
  }
  const segments = path.split('/').filter(Boolean);
  const db = (text: string | undefined): number => {
    if (text === undefined) return 0;
    const n = Number(text);
    if (!Number.isInteger(n) || n < 0 || n > 15) throw configError(`database "${text}" must be an integer 0–15`);
    return n;
  };
  let connection: RedisConnection;
  if (scheme === 'redis') {
    const [node] = hostPorts(hosts!, 6379);
    if (hosts!.includes(','))
      throw configError('redis:// takes one host; use redis-cluster:// or redis-sentinel:// for several');
    connection = { mode: 'standalone', host: node!.host, port: node!.port, db: db(segments[0]), ...credentials };
  } else if (scheme === 'redis-sentinel') {
    if (!segments[0]) throw configError('redis-sentinel:// needs the master name as its path (/mymaster)');
    connection = {
      mode: 'sentinel',
      sentinels: hostPorts(hosts!, 26379),
      masterName: decodeURIComponent(segments[0]),
      db: db(segments[1]),
      ...credentials,
    };
  } else {
    if (segments.length) throw configError('redis-cluster:// takes no path (Cluster has only database 0)');
    connection = { mode: 'cluster', nodes: hostPorts(hosts!, 6379), ...credentials };
  }
  const parsed: ParsedRedisUrl = { connection };
  const params = new URLSearchParams(query);
  const prefix = params.get('prefix');
  if (prefix !== null) parsed.prefix = prefix;
  const partitions = params.get('partitions');
  if (partitions !== null) parsed.partitions = Number(partitions);
  return parsed;
}

export type RedisClient = Redis | Cluster;

export interface ClientTuning {
  /** A command that gets no answer within this time fails with E_STORE_UNAVAILABLE (config redis.commandTimeoutMs). */
  commandTimeoutMs: number;
  /** Connecting to one server gives up after this long (config redis.connectTimeoutMs). */
  connectTimeoutMs: number;
}

/**
 * Builds a client that fails fast instead of buffering: no offline queue (a command issued while
 * disconnected is rejected at once), one retry per request, a command timeout, and reconnection with
 * capped backoff in the background so the store recovers by itself. `lazyConnect`: open() connects.
 */
export function createRedisClient(connection: RedisConnection, tuning: ClientTuning): RedisClient {
  const base: Omit<RedisOptions, 'replyMapping'> = {
    lazyConnect: true,
    enableOfflineQueue: false,
    // Off: the store batches itself (PartitionBatcher), and auto-pipelining's per-turn Pipeline copies every
    // defined script, garbage that lengthens GC pauses (docs/performance.md).
    enableAutoPipelining: false,
    maxRetriesPerRequest: 1,
    commandTimeout: tuning.commandTimeoutMs,
    connectTimeout: tuning.connectTimeoutMs,
    retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 6), 2000),
    // After a Sentinel failover the old master turns replica: reconnect so writes reach the new one.
    reconnectOnError: (err) => (err.message.startsWith('READONLY') ? 2 : false),
    ...(connection.username === undefined ? {} : { username: connection.username }),
    ...(connection.password === undefined ? {} : { password: connection.password }),
  };
  switch (connection.mode) {
    case 'standalone':
      return new Redis({ ...base, host: connection.host, port: connection.port, db: connection.db });
    case 'sentinel':
      return new Redis({
        ...base,
        sentinels: connection.sentinels,
        name: connection.masterName,
        db: connection.db,
        // Off: ioredis's detector, when +switch-master arrives while the client is reconnecting (the master was
        // killed), aborts that connect and the client ends for good ("Connection is closed."). Without it a
        // dead master's connection reconnects through the sentinels, and a demoted one answers READONLY (above).
        failoverDetector: false,
      });
    case 'cluster': {
      const {
        retryStrategy: _unused,
        enableOfflineQueue: _off,
        lazyConnect: _lazy,
        enableAutoPipelining: _auto,
        ...redisOptions
      } = base;
      return new Cluster(connection.nodes as ClusterNode[], {
        lazyConnect: true,
        enableOfflineQueue: false,
        enableAutoPipelining: false,
        scaleReads: 'master',
        clusterRetryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 5), 2000),
        redisOptions,
      });
    }
  }
}

/**
 * Closes a client for good: QUIT when it can be sent (pending replies arrive first), then, unless that ended it,
 * disconnect, which also cancels a pending reconnect: a client closed while a failover has it reconnecting
 * must not come back.
 */
export async function closeClient(client: RedisClient): Promise<void> {
  await client.quit().catch(() => undefined);
  if (client.status !== 'end') client.disconnect();
}

/** The servers whose eviction policy matters: every master of a Cluster, else the one client. */
export function masters(client: RedisClient): Redis[] {
  return client instanceof Cluster ? client.nodes('master') : [client];
}

/**
 * Refuses a Redis that may evict the store's keys: `allkeys-*` evicts anything under memory pressure.
 * `volatile-*` only evicts keys with a TTL, and the store sets none, so it (and `noeviction`) is accepted.
 * A server that hides CONFIG (managed Redis) is accepted: we cannot tell, and refusing would lock it out.
 */
export async function checkEvictionPolicy(client: RedisClient): Promise<void> {
  for (const node of masters(client)) {
    let policy: string | undefined;
    try {
      const reply = (await node.config('GET', 'maxmemory-policy')) as string[];
      policy = reply[1];
    } catch {
      continue;
    }
    if (policy?.startsWith('allkeys-')) {
      throw new DelayqError(
        'E_CONFIG',
        `Redis ${node.options.host}:${node.options.port} has maxmemory-policy ${policy}: it may evict delayq's jobs under ` +
          'memory pressure and lose them. Set maxmemory-policy to noeviction (or a volatile-* policy) for this server.',
        { field: 'redis.url', details: { maxmemoryPolicy: policy } },
      );
    }
  }
}
