/**
 * delayq's configuration: one TypeBox schema with a default and a unit for every option, read once at
 * start from (lowest to highest precedence) the defaults, an optional JSON file, `DELAYQ_*` environment
 * variables and command-line flags, validated once, returned frozen. This is the only file that reads
 * `process.env`. An invalid option fails start-up with E_CONFIG naming the option and its variable.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { DelayqError, isDelayqError } from './core/errors.js';
import { normalizeBackoff } from './core/job-input.js';
import type { JobDefaults } from './core/job-input.js';
import type { RetryPolicy } from './core/job.js';
import { LIMITS } from './core/limits.js';
import { deepFreeze, deepMerge, parseTokens, readFile, setPath } from './config-sources.js';

const MiB = 1024 * 1024;
const obj = <T extends Record<string, TSchema>>(properties: T) =>
  Type.Object(properties, { additionalProperties: false, default: {} });

export const ConfigSchema = obj({
  http: obj({
    /** Interface to listen on. @defaultValue 127.0.0.1 (loopback only; use 0.0.0.0 to expose) */
    host: Type.String({ default: '127.0.0.1', minLength: 1 }),
    /** TCP port; 0 picks a free one. @defaultValue 7750 */
    port: Type.Integer({ default: 7750, minimum: 0, maximum: 65535 }),
    /** Largest request body, bytes; larger requests get 413 E_BODY_TOO_LARGE. @defaultValue 4 MiB */
    bodyLimitBytes: Type.Integer({ default: 4 * MiB, minimum: 1024, maximum: 256 * MiB }),
    /**
     * Web origins (`scheme://host[:port]`) whose pages may change state through the API besides the server's
     * own (the console): other pages' browser requests that change state are refused (docs/security.md). @defaultValue []
     */
    allowedOrigins: Type.Array(Type.String({ pattern: '^https?://[^/\\s]+$' }), { default: [] }),
    /**
     * Host names the API answers to while it listens on loopback, besides localhost, 127.x.x.x and [::1] (a
     * reverse proxy's name, say); "*" answers to any. Keeps DNS rebinding out. @defaultValue []
     */
    allowedHosts: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
  }),
  grpc: obj({
    /** Serve the gRPC API (proto/delayq/v1/delayq.proto, docs/grpc.md) on its own port. @defaultValue false */
    enabled: Type.Boolean({ default: false }),
    /** Interface the gRPC server listens on. @defaultValue 127.0.0.1 */
    host: Type.String({ default: '127.0.0.1', minLength: 1 }),
    /** gRPC port; 0 picks a free one. @defaultValue 7751 */
    port: Type.Integer({ default: 7751, minimum: 0, maximum: 65535 }),
    /** Largest gRPC message, bytes; larger ones are refused with RESOURCE_EXHAUSTED. @defaultValue 4 MiB */
    maxMessageBytes: Type.Integer({ default: 4 * MiB, minimum: 1024, maximum: 256 * MiB }),
  }),
  store: obj({
    /** Where jobs live: the embedded SQLite file, or Redis. @defaultValue sqlite */
    kind: Type.Union([Type.Literal('sqlite'), Type.Literal('redis')], { default: 'sqlite' }),
  }),
  sqlite: obj({
    /** Database file (its directory is created), or ":memory:". @defaultValue ./data/delayq.db */
    path: Type.String({ default: './data/delayq.db', minLength: 1 }),
    /** SQLite `synchronous`: NORMAL survives a process crash, FULL also power loss (fsync per commit). @defaultValue NORMAL */
    synchronous: Type.Union([Type.Literal('NORMAL'), Type.Literal('FULL')], { default: 'NORMAL' }),
    /**
     * SQLite's page cache, MiB: past it, a push reads the index pages it writes from the file. Memory the
     * process may hold at most for it. @defaultValue 256
     */
    cacheMb: Type.Integer({ default: 256, minimum: 2, maximum: 65_536 }),
  }),
  redis: obj({
    /**
     * Where Redis is: `redis://[:password@]host:port[/db]` (standalone),
     * `redis-sentinel://host:port,host:port/masterName` (Sentinel), `redis-cluster://host:port,host:port`
     * (Cluster seed nodes). docs/redis-store.md. @defaultValue redis://127.0.0.1:6379
     */
    url: Type.String({ default: 'redis://127.0.0.1:6379', minLength: 1 }),
    /** Prefix of every key delayq writes (letters, digits, . _ : -); several deployments may share a Redis. @defaultValue dq */
    prefix: Type.String({ default: 'dq', pattern: '^[A-Za-z0-9._:-]{1,64}$' }),
    /**
     * Partitions (hash-tagged key groups, each one Cluster slot) that every topic is spread over, so one
     * busy topic is not pinned to one slot. 0 = automatic: on a Cluster as many on each master (at least 8),
     * 1 otherwise. Fixed for the life of the data, which records it. @defaultValue 0 (automatic)
     */
    partitions: Type.Integer({ default: 0, minimum: 0, maximum: 1024 }),
    /** A Redis command not answered within this is failed with E_STORE_UNAVAILABLE (503), ms. @defaultValue 2000 */
    commandTimeoutMs: Type.Integer({ default: 2000, minimum: 50, maximum: 60_000 }),
    /** One attempt to connect to a Redis server gives up after this; reconnecting goes on in the background, ms. @defaultValue 2000 */
    connectTimeoutMs: Type.Integer({ default: 2000, minimum: 50, maximum: 60_000 }),
  }),
  journal: obj({
    /**
     * The SQL journal beside the store (docs/journal.md): every job also kept in PostgreSQL or
     * MariaDB/MySQL, so a store loss is restored with nothing lost and far-future jobs cost the store
     * nothing. `none`: no journal. @defaultValue none
     */
    kind: Type.Union([Type.Literal('none'), Type.Literal('postgres'), Type.Literal('mysql')], { default: 'none' }),
    /** postgres://user@host:5432/db or mysql://user@host:3306/db (the database must exist). @defaultValue "" */
    url: Type.String({ default: '' }),
    /** PostgreSQL schema for the journal tables (created if missing). @defaultValue public */
    schema: Type.String({ default: 'public', pattern: '^[a-z_][a-z0-9_]{0,62}$' }),
    /** Jobs due further away than this stay only in the journal until they come within it, ms. @defaultValue 1 h */
    horizonMs: Type.Integer({ default: 3_600_000, minimum: 1000 }),
    /** When the store comes back empty (Redis wiped): restore at once (auto) or only report it (manual). @defaultValue auto */
    restoreMode: Type.Union([Type.Literal('auto'), Type.Literal('manual')], { default: 'auto' }),
    /** Ended jobs leave the store this long after they ended (the journal keeps them for the retention), ms. @defaultValue 60000 */
    innerRetentionMs: Type.Integer({ default: 60_000, minimum: 0 }),
    /**
     * Unfinished journal rows compared with the store per loader round (reconciliation, docs/journal.md): a
     * cycle over U unfinished jobs takes U / this rounds, and ended jobs leave the store only after one. @defaultValue 1000
     */
    reconcileBatchSize: Type.Integer({ default: 1000, minimum: 10, maximum: 100_000 }),
    /** A journaled job the store does not hold is pushed back only once its row was not written for this long, ms. @defaultValue 10000 */
    reconcileSettleMs: Type.Integer({ default: 10_000, minimum: 0 }),
  }),
  /** Name of this process in job history. @defaultValue host:pid (when empty) */
  nodeId: Type.String({ default: '', maxLength: 128 }),
  jobs: obj({
    /** Default time-to-run of a reservation, ms. @defaultValue 30000 */
    ttrMs: Type.Integer({ default: 30_000, minimum: LIMITS.ttrMinMs, maximum: LIMITS.ttrMaxMs }),
    /** Largest job body, bytes of JSON text; larger get 413 E_BODY_TOO_LARGE. @defaultValue 1 MiB */
    bodyMaxBytes: Type.Integer({ default: MiB, minimum: 16, maximum: 64 * MiB }),
    retry: obj({
      /** Deliveries per job, the first included, before it is buried. @defaultValue 3 */
      maxAttempts: Type.Integer({ default: 3, minimum: 1, maximum: LIMITS.maxAttemptsMax }),
      /**
       * Wait before each retry: a list schedule ("4m,10m,10m,1h") or a backoff object.
       * @defaultValue exponential from 1 s, ×2, at most 1 h
       */
      backoff: Type.Unknown({ default: { type: 'exponential', delayMs: 1000, factor: 2, maxDelayMs: 3_600_000 } }),
    }),
    /**
     * Retention of ended jobs per topic, for jobs pushed without a `retention` of their own:
     * `{ "<topic>": { "finished": ms | "none", "dead": ms | "none" } }` (docs/job-api.md). @defaultValue {}
     */
    retentionByTopic: Type.Record(
      Type.String({ pattern: LIMITS.topicPattern }),
      obj({
        finished: Type.Optional(
          Type.Union([Type.Literal('none'), Type.Integer({ minimum: 0, maximum: LIMITS.retentionMaxMs })]),
        ),
        dead: Type.Optional(
          Type.Union([Type.Literal('none'), Type.Integer({ minimum: 0, maximum: LIMITS.retentionMaxMs })]),
        ),
      }),
      { default: {} },
    ),
  }),
  scheduler: obj({
    /** Jobs moved per store call when promoting, reaping or expiring. @defaultValue 1000 */
    batchSize: Type.Integer({ default: 1000, minimum: 1, maximum: 100_000 }),
    /** Longest sleep of the timer when nothing is due, ms (a safety net). @defaultValue 1000 */
    safetyWakeMs: Type.Integer({ default: 1000, minimum: 10, maximum: 3_600_000 }),
    /** Finished, dead, cancelled and expired jobs are purged this long after they ended, ms. @defaultValue 7 days */
    retentionMs: Type.Integer({ default: 7 * 86_400_000, minimum: 0 }),
    /** How often the purge runs, ms. @defaultValue 60000 */
    purgeIntervalMs: Type.Integer({ default: 60_000, minimum: 1000 }),
    /** How often ended jobs with a retention of their own (push's `retention`, `jobs.retentionByTopic`) are deleted, ms. @defaultValue 1000 */
    retainedPurgeIntervalMs: Type.Integer({ default: 1000, minimum: 100 }),
  }),
  auth: obj({
    /**
     * Bearer tokens. Empty: no authentication. Otherwise every endpoint but /health, /ready and the API
     * docs needs `Authorization: Bearer <token>`; a token with `topics` may only touch topics starting
     * with one of those prefixes. Env: JSON, or "tokenA,tokenB=prefix1|prefix2". @defaultValue []
     */
    tokens: Type.Array(
      obj({
        token: Type.String({ minLength: 16, maxLength: 256 }),
        /** Who holds the token, for audit lines; default `token:` + the first 12 hex digits of its SHA-256. */
        name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._@:-]+$' })),
        topics: Type.Optional(
          Type.Array(Type.String({ minLength: 1, maxLength: LIMITS.topicMaxLength }), { minItems: 1 }),
        ),
      }),
      { default: [] },
    ),
  }),
  rateLimit: obj({
    /** Requests per window per bearer token (per client IP when auth is off), shared across instances on the Redis store; 0 turns it off. @defaultValue 0 */
    max: Type.Integer({ default: 0, minimum: 0, maximum: 10_000_000 }),
    /** Length of the rate-limit window, ms. @defaultValue 60000 */
    windowMs: Type.Integer({ default: 60_000, minimum: 100, maximum: 86_400_000 }),
  }),
  sinks: obj({
    /**
     * Delivery bindings applied at start, topic → sink (docs/sinks.md). A binding stored earlier (set through
     * the API at run time) wins over the file: config seeds bindings, operators change them. @defaultValue {}
     */
    bindings: Type.Record(Type.String({ pattern: LIMITS.topicPattern }), Type.Unknown(), { default: {} }),
    /** Deprecated: the same as `bindings`, under its first name (still read in this release; `bindings` wins per topic). @defaultValue {} */
    routes: Type.Record(Type.String({ pattern: LIMITS.topicPattern }), Type.Unknown(), { default: {} }),
    /** How often an instance re-reads bindings changed by other instances, ms. @defaultValue 2000 */
    refreshIntervalMs: Type.Integer({ default: 2000, minimum: 100, maximum: 600_000 }),
  }),
  metrics: obj({
    /** Distinct topics that get their own label in /metrics; later topics are summed under `other`. @defaultValue 100 */
    topicLabelLimit: Type.Integer({ default: 100, minimum: 1, maximum: 10_000 }),
    /** How long a scrape reuses the store's stats (the per-state gauges), ms. @defaultValue 5000 */
    statsCacheMs: Type.Integer({ default: 5000, minimum: 0, maximum: 600_000 }),
  }),
  schedules: obj({
    /** How long before its tick a schedule's job is pushed (an ordinary delayed job), ms. @defaultValue 2000 */
    leadMs: Type.Integer({ default: 2000, minimum: 100, maximum: 3_600_000 }),
    /** How late a tick may be found before it counts as missed (the schedule's `missed` policy applies), ms. @defaultValue 2000 */
    graceMs: Type.Integer({ default: 2000, minimum: 0, maximum: 3_600_000 }),
    /** Longest sleep between runner rounds, so schedules changed on other instances are picked up, ms. @defaultValue 1000 */
    refreshIntervalMs: Type.Integer({ default: 1000, minimum: 100, maximum: 600_000 }),
  }),
  beanstalkd: obj({
    /** Serve beanstalkd's protocol beside HTTP (docs/beanstalkd.md). @defaultValue false */
    enabled: Type.Boolean({ default: false }),
    /** Interface to listen on. @defaultValue 127.0.0.1 */
    host: Type.String({ default: '127.0.0.1', minLength: 1 }),
    /** TCP port; 0 picks a free one. @defaultValue 11300 (beanstalkd's) */
    port: Type.Integer({ default: 11_300, minimum: 0, maximum: 65535 }),
    /**
     * The protocol has no authentication: with auth tokens configured, a listener on a non-loopback host is
     * refused at start unless this is true. @defaultValue false
     */
    allowUnauthenticated: Type.Boolean({ default: false }),
  }),
  events: obj({
    /**
     * Job events kept for followers to resume from (Last-Event-ID, docs/events.md): in memory on SQLite, the
     * Redis stream's approximate MAXLEN on Redis. @defaultValue 10000
     */
    maxLength: Type.Integer({ default: 10_000, minimum: 100, maximum: 10_000_000 }),
    /** How often an idle event stream sends a comment line, so proxies keep it open, ms. @defaultValue 15000 */
    heartbeatMs: Type.Integer({ default: 15_000, minimum: 100, maximum: 300_000 }),
  }),
  log: obj({
    /** pino level. @defaultValue info */
    level: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
    /** Log request bodies (job bodies) at debug level. Off: bodies may hold personal data. @defaultValue false */
    bodies: Type.Boolean({ default: false }),
  }),
});

export type Config = Static<typeof ConfigSchema>;

/** Every option at its default: the one home of each default value; other modules read theirs from here. */
export const DEFAULTS: Readonly<Config> = deepFreeze(Value.Default(ConfigSchema, {}) as Config);

/** The defaults of a sink's own options (a `sinks.bindings` entry or a binding set through the API). */
export const SINK_DEFAULTS = Object.freeze({ concurrency: 8, timeoutMs: 10_000 });
export type AuthToken = Config['auth']['tokens'][number];

export interface LoadConfigOptions {
  /** From command-line flags; wins over everything. */
  overrides?: Record<string, unknown>;
  /** Environment; only DELAYQ_* variables are read. @defaultValue process.env */
  env?: Record<string, string | undefined>;
  /** A JSON file holding a partial Config. Optional. */
  file?: string | undefined;
}

interface Leaf {
  path: string[];
  env: string;
  schema: TSchema;
}

/** `jobs.retry.maxAttempts` → DELAYQ_JOBS_RETRY_MAX_ATTEMPTS. */
export function envName(path: readonly string[]): string {
  return `DELAYQ_${path.map((p) => p.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()).join('_')}`;
}

/** Every option of the schema, with its environment variable (the README's table is this list). */
export function configOptions(): Leaf[] {
  const leaves: Leaf[] = [];
  const walk = (schema: TSchema, path: string[]): void => {
    const props = (schema as { properties?: Record<string, TSchema> }).properties;
    if ((schema as { type?: string }).type === 'object' && props && path.join('.') !== 'jobs.retry.backoff') {
      for (const [key, child] of Object.entries(props)) walk(child, [...path, key]);
    } else {
      leaves.push({ path, env: envName(path), schema });
    }
  };
  walk(ConfigSchema, []);
  return leaves;
}

function fromEnv(env: Record<string, string | undefined>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const leaf of configOptions()) {
    const raw = env[leaf.env];
    if (raw === undefined || raw === '') continue;
    let value: unknown = raw;
    try {
      if (leaf.env === 'DELAYQ_AUTH_TOKENS') value = parseTokens(raw);
      else if (/^\s*[[{]/.test(raw)) value = JSON.parse(raw);
      else value = Value.Convert(leaf.schema, raw);
    } catch {
      throw configError(leaf.path.join('.'), `${leaf.env} is not valid JSON`);
    }
    setPath(out, leaf.path, value);
  }
  return out;
}

function configError(field: string, message: string): DelayqError {
  const leaf = configOptions().find((l) => l.path.join('.') === field);
  const env = leaf ? ` (${leaf.env})` : '';
  return new DelayqError('E_CONFIG', `config ${field}${env}: ${message}`, { field });
}

/** Reads, merges and validates the configuration once. Throws E_CONFIG naming the first bad option. */
export function loadConfig(options: LoadConfigOptions = {}): Readonly<Config> {
  const env = options.env ?? process.env;
  let merged: Record<string, unknown> = {};
  if (options.file) merged = deepMerge(merged, readFile(options.file));
  merged = deepMerge(merged, fromEnv(env));
  if (options.overrides) merged = deepMerge(merged, options.overrides);

  const withDefaults = Value.Default(ConfigSchema, structuredClone(merged));
  const first = Value.Errors(ConfigSchema, withDefaults)[0];
  if (first) {
    const missing = first.params as { requiredProperties?: string[]; additionalProperties?: string[] };
    const path = first.instancePath.split('/').filter(Boolean);
    if (first.keyword === 'additionalProperties' && missing.additionalProperties?.[0]) {
      path.push(missing.additionalProperties[0]);
      throw configError(path.join('.'), 'is not a known option');
    }
    if (first.keyword === 'required' && missing.requiredProperties?.[0]) path.push(missing.requiredProperties[0]);
    throw configError(path.join('.').replace(/\.(\d+)(?=\.|$)/g, '[$1]'), first.message);
  }
  const config = withDefaults as Config;
  retryPolicyOf(config); // validates the backoff with core's own rules
  return deepFreeze(config);
}

/** The job retry policy the config describes (backoff text or object validated by core). */
export function retryPolicyOf(config: Config): RetryPolicy {
  try {
    const backoff = normalizeBackoff(config.jobs.retry.backoff as never, 'jobs.retry.backoff');
    return { maxAttempts: config.jobs.retry.maxAttempts, backoff };
  } catch (err) {
    if (isDelayqError(err)) throw configError('jobs.retry.backoff', err.message);
    throw err;
  }
}

/** What a push leaves out, as the config says. */
export function jobDefaultsOf(config: Config): JobDefaults {
  return { ttrMs: config.jobs.ttrMs, bodyMaxBytes: config.jobs.bodyMaxBytes, retry: retryPolicyOf(config) };
}

/** The retry policy of a job that names none, at the defaults ("retry 2 times": three deliveries in all). */
export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze(retryPolicyOf(DEFAULTS));
/** What a push leaves out, at the defaults (embedding and tests that build a service without a Config). */
export const DEFAULT_JOB_DEFAULTS: JobDefaults = Object.freeze(jobDefaultsOf(DEFAULTS));

/** Where the SDK and the CLI look for a server when told nothing: this config's default listener. */
export const DEFAULT_SERVER_URL = `http://${DEFAULTS.http.host}:${DEFAULTS.http.port}`;
