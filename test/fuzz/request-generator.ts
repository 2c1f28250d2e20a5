/**
 * A seeded generator of hostile HTTP requests for delayq: for every route of the API (REST v1 and the
 * seed-compatible endpoints) a plausible request, then mutated — wrong types, boundary numbers, unicode,
 * unknown fields, missing fields, oversized bodies, malformed JSON, odd content types, methods, paths and
 * headers. Same seed, same requests. Ids and reservation tokens seen in answers are fed back (`learn`), so
 * the generator also reaches the states behind finish/touch/fail/redrive.
 */
import { RESERVE_MAX_COUNT } from '../../src/protocol/reservation-schemas.js';
import { LIMITS } from '../../src/core/limits.js';

export interface FuzzRequest {
  /** A short label of what was generated, for the report. */
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Send as raw bytes on a fresh socket (methods or headers node:http would refuse to send). */
  raw?: Buffer;
}

export interface GeneratorOptions {
  seed: number;
  tokens: { admin: string; scoped: string };
  /** The server's bodyLimitBytes: "oversized" bodies go just past it. */
  bodyLimitBytes: number;
}

/** mulberry32: small, fast, good enough to drive a fuzzer reproducibly. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.5,
  -0.5,
  1e-7,
  99,
  100,
  101,
  999,
  1000,
  1001,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53,
  -(2 ** 53),
  1e21,
  1e308,
  -1e308,
  5e-324,
  LIMITS.priorityMax,
  LIMITS.priorityMax + 1,
  LIMITS.priorityMin,
  LIMITS.priorityMin - 1,
  LIMITS.ttrMinMs - 1,
  LIMITS.ttrMinMs,
  LIMITS.ttrMaxMs,
  LIMITS.ttrMaxMs + 1,
  LIMITS.maxDelayMs,
  LIMITS.maxDelayMs + 1,
  RESERVE_MAX_COUNT,
  RESERVE_MAX_COUNT + 1,
  60_001,
  Date.now(),
  Date.now() - LIMITS.pastRunAtToleranceMs - 1,
  8.64e15,
  8.64e15 + 1,
];
const STRINGS = [
  '',
  ' ',
  'a',
  'orders.a',
  'billing.b',
  'x'.repeat(LIMITS.topicMaxLength),
  'x'.repeat(LIMITS.topicMaxLength + 1),
  'y'.repeat(5000),
  '😀',
  'ü',
  '\u0000',
  '\u202e',
  '\ud800',
  '\udfff',
  'e\u0301',
  'a{b}',
  '{x}',
  '}{',
  'a:b',
  'a|b',
  'a b',
  '../../etc/passwd',
  '%00',
  '%2F',
  '<script>',
  "'; DROP TABLE jobs; --",
  '1',
  '-1',
  '1e3',
  'true',
  'null',
  'NaN',
  'Infinity',
  '2026-01-01T00:00:00Z',
  '9999-12-31T23:59:59Z',
  '0000-01-01',
  '1h',
  '4m,10m,10m,1h',
  '-1m',
  '10y',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  '\r\nX-Injected: 1',
  'ﬀ',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  '\u00a0',
  '\ufeff',
];
const METHODS_ODD = ['PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND', 'SEARCH', 'PURGE'];
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/JSON',
  'application/json; charset=utf-16',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/vnd.api+json',
  '',
  '*/*',
];

interface RouteTemplate {
  method: string;
  /** The route pattern it exercises, as Fastify registered it. */
  pattern: string;
  path: (g: Gen) => string;
  body?: (g: Gen) => Record<string, unknown>;
  query?: (g: Gen) => Record<string, unknown>;
}

class Gen {
  readonly rnd: () => number;
  readonly ids: string[] = ['job-1', 'orders.a-1'];
  readonly tokens: { id: string; token: string }[] = [];
  constructor(seed: number) {
    this.rnd = prng(seed);
  }
  int(n: number): number {
    return Math.floor(this.rnd() * n);
  }
  chance(p: number): boolean {
    return this.rnd() < p;
  }
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }
  topic(): string {
    return this.chance(0.8)
      ? this.pick(['orders.a', 'orders.b', 'billing.b', 'fuzz-1', 'fuzz.2:x'])
      : this.pick(STRINGS);
  }
  id(): string {
    return this.chance(0.75) ? this.pick(this.ids) : this.pick(STRINGS);
  }
  token(): string {
    return this.tokens.length && this.chance(0.7)
      ? this.pick(this.tokens).token
      : this.pick(['', 'x', 'stale-token', 'y'.repeat(65)]);
  }
  unicodeString(): string {
    const length = this.int(40);
    let s = '';
    for (let i = 0; i < length; i++)
      s += String.fromCodePoint(
        this.pick([
          0x20 + this.int(95),
          0xa0 + this.int(0x2000),
          0x1f600 + this.int(80),
          0xd800 + this.int(0x800),
          this.int(32),
        ]),
      );
    return s;
  }
  weird(depth = 0): unknown {
    switch (this.int(depth > 3 ? 4 : 8)) {
      case 0:
        return this.pick(NUMBERS);
      case 1:
        return this.pick(STRINGS);
      case 2:
        return this.pick([true, false, null]);
      case 3:
        return this.unicodeString();
      case 4:
        return Array.from({ length: this.int(4) }, () => this.weird(depth + 1));
      case 5:
        return Object.fromEntries(
          Array.from({ length: this.int(4) }, () => [this.pick(STRINGS), this.weird(depth + 1)]),
        );
      case 6:
        return this.chance(0.5) ? deepNest(this.pick([50, 500, 1000])) : Array.from({ length: 1001 }, (_, i) => i);
      default:
        return this.pick([{}, [], '', 0]);
    }
  }
}

/** A value nested `depth` times: stresses recursive validators and serializers. */
function deepNest(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

const jobBody = (g: Gen): Record<string, unknown> => ({
  topic: g.topic(),
  ...(g.chance(0.4) ? { id: `${g.pick(['orders.a', 'fuzz'])}-${g.int(50)}` } : {}),
  ...(g.chance(0.6) ? { body: g.chance(0.5) ? { orderNo: g.int(1e6), note: g.unicodeString() } : g.weird() } : {}),
  ...(g.chance(0.3) ? { delayMs: g.pick([0, 1, 10, 1000, 60_000]) } : {}),
  ...(g.chance(0.1) ? { runAt: g.pick([Date.now(), new Date().toISOString(), '2030-01-01T00:00:00Z']) } : {}),
  ...(g.chance(0.2) ? { priority: g.int(10) } : {}),
  ...(g.chance(0.2) ? { ttrMs: g.pick([100, 1000, 30_000]) } : {}),
  ...(g.chance(0.1) ? { ttlMs: g.pick([null, 60_000]) } : {}),
  ...(g.chance(0.1) ? { tag: 'eu', bizKey: `biz-${g.int(100)}` } : {}),
  ...(g.chance(0.1) ? { spreadMs: g.pick([0, 1000, 86_400_000, 86_400_001, -1, 1.5]) } : {}),
  ...(g.chance(0.1)
    ? {
        dedupKey: g.pick(['k-1', `k-${g.int(5)}`, 'bad key', '', null]),
        dedupWindowMs: g.pick([1, '1h', 0, -1, '31d']),
      }
    : {}),
  ...(g.chance(0.15) ? { group: g.pick(['tenant-1', 'm:42@eu', null, '', 'a b', 'x'.repeat(129), 7, '{g}']) } : {}),
  ...(g.chance(0.15)
    ? {
        retry: {
          maxAttempts: g.int(5) + 1,
          backoff: g.pick(['1s,2s', { type: 'fixed', delayMs: 100 }, { type: 'exponential', delayMs: 10, factor: 2 }]),
        },
      }
    : {}),
});

const SINK_TARGET = 'http://127.0.0.1:7699';
const sinkBody = (g: Gen): Record<string, unknown> =>
  g.pick([
    {
      type: 'webhook',
      url: `${SINK_TARGET}/hook`,
      ...(g.chance(0.5) ? { secret: 's'.repeat(16 + g.int(10)) } : {}),
      ...(g.chance(0.3) ? { allowedRanges: ['loopback'] } : {}),
    },
    { type: 'webhook', url: 'http://[::1]:7699/hook', headers: { 'x-a': 'b' }, maxRedirects: g.pick([0, 3, 11]) },
    { type: 'rabbitmq', url: 'amqp://127.0.0.1:7699', exchange: 'x' },
    { type: 'nats', servers: ['127.0.0.1:7699'], subject: 's' },
    { type: 'mqtt', url: 'mqtt://127.0.0.1:7699', topic: 't' },
    { type: g.pick(['ftp', 'webhook ', 'WEBHOOK']), url: `${SINK_TARGET}/hook` },
  ]);

const ROUTES: RouteTemplate[] = [
  { method: 'POST', pattern: '/v1/jobs', path: () => '/v1/jobs', body: jobBody },
  {
    method: 'POST',
    pattern: '/v1/jobs/batch',
    path: () => '/v1/jobs/batch',
    body: (g) => ({ jobs: Array.from({ length: g.int(5) + 1 }, () => jobBody(g)) }),
  },
  {
    method: 'GET',
    pattern: '/v1/jobs/:id',
    path: (g) => `/v1/jobs/${enc(g.id())}`,
    query: (g) => (g.chance(0.5) ? { history: g.pick(['true', 'false', '1', 'yes']) } : {}),
  },
  { method: 'GET', pattern: '/v1/jobs/:id/history', path: (g) => `/v1/jobs/${enc(g.id())}/history` },
  {
    method: 'POST',
    pattern: '/v1/jobs/:id/cancel',
    path: (g) => `/v1/jobs/${enc(g.id())}/cancel`,
    body: (g) => (g.chance(0.5) ? { reason: g.unicodeString() } : {}),
  },
  {
    method: 'POST',
    pattern: '/v1/jobs/:id/reschedule',
    path: (g) => `/v1/jobs/${enc(g.id())}/reschedule`,
    body: (g) => (g.chance(0.5) ? { delayMs: g.pick([0, 1000]) } : { runAt: Date.now() + 1000 }),
  },
  {
    method: 'POST',
    pattern: '/v1/jobs/:id/run-now',
    path: (g) => `/v1/jobs/${enc(g.id())}/run-now`,
    body: (g) => (g.chance(0.7) ? {} : { delayMs: 0 }),
  },
  {
    method: 'GET',
    pattern: '/v1/jobs',
    path: () => '/v1/jobs',
    query: (g) => ({
      topic: g.topic(),
      ...(g.chance(0.5) ? { state: g.pick(['ready', 'dead', 'nope']) } : {}),
      limit: g.pick([1, 10, 1000, 1001, 0]),
    }),
  },
  {
    method: 'POST',
    pattern: '/v1/purge',
    path: () => '/v1/purge',
    body: (g) => ({ before: g.pick([0, Date.now() - 86_400_000]), limit: g.pick([1, 10]) }),
  },
  {
    method: 'POST',
    pattern: '/v1/reserve',
    path: () => '/v1/reserve',
    body: (g) => ({
      topics: [g.topic()],
      count: g.int(5) + 1,
      ...(g.chance(0.3) ? { waitMs: g.pick([0, 1, 10]) } : {}),
      ...(g.chance(0.2) ? { ttrMs: 1000 } : {}),
    }),
  },
  {
    method: 'POST',
    pattern: '/v1/jobs/:id/touch',
    path: (g) => `/v1/jobs/${enc(pickReserved(g))}/touch`,
    body: (g) => ({ token: g.token(), ...(g.chance(0.3) ? { ttrMs: 5000 } : {}) }),
  },
  {
    method: 'POST',
    pattern: '/v1/jobs/:id/finish',
    path: (g) => `/v1/jobs/${enc(pickReserved(g))}/finish`,
    body: (g) => ({ token: g.token() }),
  },
  {
    method: 'POST',
    pattern: '/v1/jobs/:id/fail',
    path: (g) => `/v1/jobs/${enc(pickReserved(g))}/fail`,
    body: (g) => ({
      token: g.token(),
      error: g.unicodeString(),
      ...(g.chance(0.3) ? { bury: true } : {}),
      ...(g.chance(0.3) ? { retryDelayMs: 10 } : {}),
    }),
  },
  {
    method: 'POST',
    pattern: '/v1/jobs/:id/release',
    path: (g) => `/v1/jobs/${enc(pickReserved(g))}/release`,
    body: (g) => ({ token: g.token() }),
  },
  { method: 'GET', pattern: '/v1/stats', path: () => '/v1/stats' },
  {
    method: 'GET',
    pattern: '/v1/stats/due',
    path: () => '/v1/stats/due',
    query: (g) => ({
      ...(g.chance(0.5) ? { topic: g.topic() } : {}),
      ...(g.chance(0.5) ? { from: g.pick([0, Date.now(), -1, 'x']) } : {}),
      ...(g.chance(0.5) ? { to: g.pick([Date.now() + 3_600_000, 0, 1e15]) } : {}),
      ...(g.chance(0.5) ? { bucketMs: g.pick([60_000, 1, 3_600_000, 'x']) } : {}),
    }),
  },
  {
    method: 'GET',
    pattern: '/v1/stats/series',
    path: () => '/v1/stats/series',
    query: (g) => ({
      ...(g.chance(0.5) ? { topic: g.topic() } : {}),
      ...(g.chance(0.3) ? { from: g.pick([0, Date.now() - 600_000, -1, 'x']) } : {}),
      ...(g.chance(0.3) ? { to: g.pick([Date.now() + 60_000, 0, 1e15]) } : {}),
      ...(g.chance(0.3) ? { windowMs: g.pick([300_000, 0, 1e12, 'x']) } : {}),
      ...(g.chance(0.5) ? { stepMs: g.pick([10_000, 60_000, 300_000, 15_000, 0, 'x']) } : {}),
    }),
  },
  {
    method: 'POST',
    pattern: '/v1/ack',
    path: () => '/v1/ack',
    body: (g) => ({
      acks: Array.from({ length: g.int(4) + 1 }, () => ackItem(g)),
      ...(g.chance(0.2) ? { jobs: g.pick([true, false, 'yes']) } : {}),
    }),
  },
  {
    method: 'POST',
    pattern: '/v1/topics/:topic/pause',
    path: (g) => `/v1/topics/${enc(g.topic())}/pause`,
    body: (g) => (g.chance(0.5) ? { delayMs: g.pick([0, 1000, '1m', -1, 'x']) } : {}),
  },
  { method: 'POST', pattern: '/v1/topics/:topic/resume', path: (g) => `/v1/topics/${enc(g.topic())}/resume` },
  {
    method: 'POST',
    pattern: '/v1/topics/:topic/groups/:group/pause',
    path: (g) =>
      `/v1/topics/${enc(g.topic())}/groups/${enc(g.pick(['m-1', 'a:b@c', 'a b', '', 'x'.repeat(129)]))}/pause`,
    body: (g) => (g.chance(0.5) ? { delayMs: g.pick([0, 1000, '1m', -1, 'x']) } : {}),
  },
  {
    method: 'POST',
    pattern: '/v1/topics/:topic/groups/:group/resume',
    path: (g) => `/v1/topics/${enc(g.topic())}/groups/${enc(g.pick(['m-1', 'a b', '{t}']))}/resume`,
  },
  {
    method: 'GET',
    pattern: '/v1/topics/:topic/groups/paused',
    path: (g) => `/v1/topics/${enc(g.topic())}/groups/paused`,
  },
  { method: 'GET', pattern: '/v1/topics/:topic/stats', path: (g) => `/v1/topics/${enc(g.topic())}/stats` },
  { method: 'GET', pattern: '/v1/topics/:topic/settings', path: (g) => `/v1/topics/${enc(g.topic())}/settings` },
  {
    method: 'PUT',
    pattern: '/v1/topics/:topic/settings',
    path: (g) => `/v1/topics/${enc(g.topic())}/settings`,
    body: (g) =>
      g.chance(0.3)
        ? {}
        : {
            rateLimit: { perSecond: g.pick([0, -1, 0.5, 50, 1e7, 'x']), burst: g.pick([undefined, 0, 1, 2.5, 10]) },
            ...(g.chance(0.4) ? { groupConcurrency: g.pick([0, 1, 2, 1.5, 'x', null, 100_001]) } : {}),
          },
  },
  {
    method: 'GET',
    pattern: '/v1/dead',
    path: () => '/v1/dead',
    query: (g) => ({ topic: g.topic(), limit: g.pick([1, 100]) }),
  },
  {
    method: 'POST',
    pattern: '/v1/dead/redrive',
    path: () => '/v1/dead/redrive',
    body: (g) => (g.chance(0.5) ? { topic: g.topic(), limit: 10 } : { ids: [g.id(), g.id()] }),
  },
  // job event streams (docs/events.md): an accepted stream never ends, so the fuzz sends only refused ones
  // (an event name that is none, a job that does not exist); test/server/job-events.test.ts covers the rest.
  {
    method: 'GET',
    pattern: '/v1/events',
    path: () => '/v1/events',
    query: (g) => ({
      ...(g.chance(0.8) ? { topic: g.topic() } : {}),
      events: g.pick(['done', 'finished,', '', 'finished,x', g.unicodeString()]),
    }),
  },
  {
    method: 'GET',
    pattern: '/v1/jobs/:id/events',
    path: (g) => `/v1/jobs/${enc(`absent-${g.int(1000)}`)}/events`,
    query: (g) => (g.chance(0.5) ? { events: g.pick(['finished', 'nope']) } : {}),
  },
  // the job API's listings and bulk operations (docs/job-api.md)
  {
    method: 'GET',
    pattern: '/v1/delayed',
    path: () => '/v1/delayed',
    query: (g) => ({
      ...(g.chance(0.5) ? { topic: g.topic() } : {}),
      ...(g.chance(0.5) ? { from: g.pick([0, Date.now(), -1, 'x']) } : {}),
      ...(g.chance(0.5) ? { to: g.pick([Date.now() + 3_600_000, 0, 1e15]) } : {}),
      ...(g.chance(0.5) ? { limit: g.pick([1, 100, 0, 'x']) } : {}),
    }),
  },
  {
    method: 'GET',
    pattern: '/v1/reserved',
    path: () => '/v1/reserved',
    query: (g) => ({
      ...(g.chance(0.5) ? { topic: g.topic() } : {}),
      ...(g.chance(0.5) ? { limit: g.pick([1, 100, 0, 'x']) } : {}),
      ...(g.chance(0.3) ? { cursor: g.unicodeString() } : {}),
    }),
  },
  {
    method: 'POST',
    pattern: '/v1/jobs/bulk',
    path: () => '/v1/jobs/bulk',
    body: (g) => ({
      action: g.pick(['cancel', 'reschedule', 'redrive', 'delete', 'explode']),
      selector: g.pick([{ topic: g.topic() }, { bizKey: g.unicodeString() }, { tag: 'x', state: 'delayed' }, {}]),
      ...(g.chance(0.5) ? { dryRun: g.pick([true, false, 'yes']) } : {}),
      ...(g.chance(0.3) ? { shiftMs: g.pick([1000, '10m', -1, 'x']) } : {}),
      ...(g.chance(0.3) ? { limit: g.pick([1, 10, 0, 1e9]) } : {}),
      ...(g.chance(0.2) ? { cursor: g.unicodeString() } : {}),
    }),
  },
  { method: 'GET', pattern: '/health', path: () => '/health' },
  { method: 'GET', pattern: '/ready', path: () => '/ready' },
  { method: 'GET', pattern: '/openapi.json', path: () => '/openapi.json' },
  // delivery bindings and metrics (sink targets stay on loopback, on a port nothing listens on: no traffic leaves the machine)
  { method: 'GET', pattern: '/v1/sinks', path: () => '/v1/sinks' },
  { method: 'GET', pattern: '/v1/topics/:topic/sink', path: (g) => `/v1/topics/${enc(g.topic())}/sink` },
  {
    method: 'PUT',
    pattern: '/v1/topics/:topic/sink',
    path: (g) => `/v1/topics/${enc(g.topic())}/sink`,
    body: sinkBody,
  },
  { method: 'DELETE', pattern: '/v1/topics/:topic/sink', path: (g) => `/v1/topics/${enc(g.topic())}/sink` },
  {
    method: 'POST',
    pattern: '/v1/topics/:topic/sink/test',
    path: (g) => `/v1/topics/${enc(g.topic())}/sink/test`,
    body: (g) => (g.chance(0.8) ? {} : { body: g.unicodeString() }),
  },
  {
    method: 'GET',
    pattern: '/v1/topics',
    path: () => '/v1/topics',
    query: (g) => ({
      ...(g.chance(0.3) ? { prefix: g.pick(['a', '', 'x'.repeat(300), '*']) } : {}),
      ...(g.chance(0.3) ? { contains: g.unicodeString() } : {}),
      ...(g.chance(0.3) ? { has: g.pick(['dead', 'ready', 'nope', '']) } : {}),
      ...(g.chance(0.3) ? { paused: g.pick(['true', 'false', 'maybe']) } : {}),
      ...(g.chance(0.3) ? { sort: g.pick(['topic', 'total', 'nextDueAt', 'dead', 'x']) } : {}),
      ...(g.chance(0.3) ? { order: g.pick(['asc', 'desc', 'up']) } : {}),
      ...(g.chance(0.3) ? { limit: g.pick([1, 50, 1000, 0, 1001, 'x']) } : {}),
      ...(g.chance(0.3) ? { cursor: g.pick(['', 'garbage', 'x'.repeat(600)]) } : {}),
    }),
  },
  {
    method: 'GET',
    pattern: '/v1/consumers',
    path: () => '/v1/consumers',
    query: (g) => ({
      ...(g.chance(0.5) ? { topic: g.topic() } : {}),
      ...(g.chance(0.3) ? { kind: g.pick(['long-poll', 'grpc-stream', 'beanstalkd', 'sink', 'other']) } : {}),
      ...(g.chance(0.3) ? { limit: g.pick([1, 1000, 0, 1001, 'x']) } : {}),
    }),
  },
  { method: 'GET', pattern: '/metrics', path: () => '/metrics' },
  // journal operations (the fuzz server has no journal: 409 E_CONFLICT, or 400/401/403 before that)
  { method: 'GET', pattern: '/v1/journal', path: () => '/v1/journal' },
  {
    method: 'POST',
    pattern: '/v1/restore',
    path: () => '/v1/restore',
    body: (g) => (g.chance(0.5) ? { expire: g.pick([true, false, 'yes', 1]) } : {}),
  },
  {
    method: 'POST',
    pattern: '/v1/jobs/:id/restore',
    path: (g) => `/v1/jobs/${enc(g.id())}/restore`,
    body: (g) => (g.chance(0.5) ? { expire: g.pick([true, 'no']) } : {}),
  },
  {
    method: 'POST',
    pattern: '/v1/clear-all',
    path: () => '/v1/clear-all',
    body: (g) => ({
      confirm: g.pick(['clear-all', 'yes', '', 42]),
      ...(g.chance(0.3) ? { reason: g.unicodeString() } : {}),
    }),
  },
  // seed-compatible endpoints
  {
    method: 'POST',
    pattern: '/push',
    path: () => '/push',
    body: (g) => ({
      topic: g.topic(),
      ...(g.chance(0.5) ? { id: g.chance(0.5) ? g.int(1e6) : `m-${g.int(50)}` } : {}),
      body: g.weird(),
      delay: g.pick([0, 1000, -1]),
      ...(g.chance(0.3) ? { createTime: Date.now() } : {}),
      ...(g.chance(0.3) ? { subtopic: 's', bizKey: 'b', ttl: 1, status: 0 } : {}),
    }),
  },
  {
    method: 'GET',
    pattern: '/get/:topic',
    path: (g) => `/get/${enc(g.topic())}`,
    query: (g) => (g.chance(0.3) ? { waitMs: g.pick([0, 1, -1, 'x']) } : {}),
  },
  { method: 'GET', pattern: '/finish', path: () => '/finish', query: (g) => ({ jobId: g.id() }) },
  { method: 'GET', pattern: '/delete', path: () => '/delete', query: (g) => ({ jobId: g.id() }) },
  {
    method: 'GET',
    pattern: '/reStore',
    path: () => '/reStore',
    query: (g) => (g.chance(0.5) ? { expire: g.pick(['true', 'false', 'maybe']) } : {}),
  },
  { method: 'GET', pattern: '/reStore/:id', path: (g) => `/reStore/${enc(g.id())}` },
  { method: 'GET', pattern: '/reStoreJob', path: () => '/reStoreJob', query: (g) => ({ jobId: g.id() }) },
  {
    method: 'GET',
    pattern: '/clearAll',
    path: () => '/clearAll',
    query: (g) => (g.chance(0.5) ? { confirm: g.pick(['clear-all', 'no']) } : {}),
  },
  {
    method: 'POST',
    pattern: '/youzan',
    path: () => '/youzan',
    body: (g) => ({
      command: g.pick(['add', 'pop', 'finish', 'delete', 'ADD', 'kick']),
      topic: g.topic(),
      id: g.id(),
      delay: g.pick([0, 1, '1', '1.5', -1, 'x']),
      TTR: g.pick([1, '30', 0]),
      body: g.weird(),
    }),
  },
];

/** The routes the generator exercises (method and pattern), so a test can check it covers the route table. */
export const GENERATED_ROUTES = (): string[] => ROUTES.map((r) => `${r.method} ${r.pattern}`);

/** One item of a batch ack: a reserved job's id (or a stray one), a token, an operation and its options. */
function ackItem(g: Gen): Record<string, unknown> {
  const op = g.pick(['finish', 'fail', 'release', 'touch', 'nope']);
  return {
    id: pickReserved(g),
    token: g.token(),
    op,
    ...(op === 'fail' && g.chance(0.5) ? { error: g.unicodeString(), bury: g.pick([true, false]) } : {}),
    ...(op === 'release' && g.chance(0.5) ? { delayMs: g.pick([0, 10, -1, '1s']) } : {}),
    ...(op === 'touch' && g.chance(0.5) ? { ttrMs: g.pick([1000, 0]) } : {}),
  };
}

function pickReserved(g: Gen): string {
  return g.tokens.length && g.chance(0.7) ? g.pick(g.tokens).id : g.id();
}

const enc = (s: string): string => {
  try {
    return encodeURIComponent(s);
  } catch {
    return 'lone%ED%A0%80surrogate'; // encodeURIComponent throws on a lone surrogate: send its raw UTF-8 bytes
  }
};

function queryString(g: Gen, query: Record<string, unknown>): string {
  const parts = Object.entries(query).map(([k, v]) => `${enc(k)}=${enc(String(v))}`);
  if (g.chance(0.1))
    parts.push(`${g.pick(['unknown', '__proto__[x]', 'topic', 'constructor'])}=${enc(String(g.weird()))}`);
  if (g.chance(0.03)) parts.push(`topic=${'z'.repeat(3000)}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** Mutates one field of a plausible body. */
function mutate(g: Gen, body: Record<string, unknown>): { kind: string; value: unknown } {
  const keys = Object.keys(body);
  switch (g.int(7)) {
    case 0:
      if (keys.length) {
        body[g.pick(keys)] = g.weird();
        return { kind: 'wrong-type', value: body };
      }
      return { kind: 'weird-root', value: g.weird() };
    case 1:
      if (keys.length) {
        delete body[g.pick(keys)];
        return { kind: 'missing-field', value: body };
      }
      return { kind: 'empty', value: {} };
    case 2:
      body[g.chance(0.5) ? g.pick(STRINGS) : 'unknownField'] = g.weird();
      return { kind: 'unknown-field', value: body };
    case 3:
      if (keys.length) {
        body[g.pick(keys)] = g.pick(NUMBERS);
        return { kind: 'boundary-number', value: body };
      }
      return { kind: 'number-root', value: g.pick(NUMBERS) };
    case 4:
      if (keys.length) {
        body[g.pick(keys)] = g.chance(0.5) ? g.unicodeString() : g.pick(STRINGS);
        return { kind: 'unicode', value: body };
      }
      return { kind: 'string-root', value: g.pick(STRINGS) };
    case 5:
      return { kind: 'weird-root', value: g.weird() };
    default:
      for (const k of keys) if (g.chance(0.5)) body[k] = g.weird();
      return { kind: 'many-wrong', value: body };
  }
}

/** Malformed JSON text (or not JSON at all). */
function malformed(g: Gen, valid: string): Buffer {
  switch (g.int(9)) {
    case 0:
      return Buffer.from(valid.slice(0, Math.max(0, valid.length - 1 - g.int(10))));
    case 1:
      return Buffer.from(valid.replace(/}$/, ',}'));
    case 2:
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(valid)]);
    case 3:
      return Buffer.concat([
        Buffer.from(valid.slice(0, 5)),
        Buffer.from([0xff, 0xfe, 0xc0, 0x80]),
        Buffer.from(valid.slice(5)),
      ]);
    case 4:
      return Buffer.from(valid.replace(/"/g, "'"));
    case 5:
      return Buffer.from(
        g.pick([
          '',
          'null',
          '[]',
          '1',
          '"x"',
          'true',
          '{',
          '}',
          '{"a":1}{"b":2}',
          'NaN',
          '{"topic":"a","topic":"b"}',
          '{"__proto__":{"x":1}}',
        ]),
      );
    case 6:
      return Buffer.from(`{"topic":"a","body":${'['.repeat(100_000)}`);
    case 7:
      return Buffer.from(valid.replace(/:/, '::'));
    default:
      return Buffer.from(g.unicodeString());
  }
}

export class RequestGenerator {
  private readonly g: Gen;
  private readonly options: GeneratorOptions;

  constructor(options: GeneratorOptions) {
    this.options = options;
    this.g = new Gen(options.seed);
  }

  /** Feeds back what the server answered: job ids and reservation tokens make later requests go deeper. */
  learn(answer: unknown): void {
    const body = answer as {
      job?: { id?: string };
      results?: { job?: { id?: string } }[];
      reservations?: { job: { id: string }; token: string }[];
    } | null;
    const remember = (id: unknown) => {
      if (typeof id === 'string' && this.g.ids.length < 500) this.g.ids.push(id);
    };
    if (!body || typeof body !== 'object') return;
    remember(body.job?.id);
    body.results?.forEach((r) => remember(r.job?.id));
    for (const r of body.reservations ?? []) {
      if (this.g.tokens.length >= 200) this.g.tokens.shift();
      this.g.tokens.push({ id: r.job.id, token: r.token });
    }
  }

  next(): FuzzRequest {
    const g = this.g;
    const route = g.pick(ROUTES);
    const headers: Record<string, string> = {};
    const auth = g.int(20);
    if (auth < 14) headers['authorization'] = `Bearer ${this.options.tokens.admin}`;
    else if (auth < 17) headers['authorization'] = `Bearer ${this.options.tokens.scoped}`;
    else if (auth < 19)
      headers['authorization'] = g.pick([
        'Bearer',
        'Bearer x',
        `Basic ${this.options.tokens.admin}`,
        `Bearer ${this.options.tokens.admin.toUpperCase()}`,
        'Bearer 😀'.replace('😀', 'Ã¿'),
      ]);
    let method = route.method;
    let path = route.path(g) + queryString(g, route.query?.(g) ?? {});
    let kind = 'valid';
    let body: Buffer | undefined;

    if (route.body) {
      const plain = route.body(g);
      const roll = g.int(10);
      if (roll < 3) body = Buffer.from(JSON.stringify(plain));
      else if (roll < 7) {
        const m = mutate(g, plain);
        kind = m.kind;
        body = Buffer.from(JSON.stringify(m.value) ?? 'null');
      } else if (roll < 9 && g.chance(0.1)) {
        // Valid JSON nested deeper than any serializer's recursion: built as text, JSON.stringify could not.
        kind = 'deep-json';
        const depth = g.pick([2000, 20_000, 200_000]);
        body = Buffer.from(`{"topic":"orders.deep","body":${'['.repeat(depth)}${']'.repeat(depth)}}`);
      } else if (roll < 9) {
        kind = 'malformed-json';
        body = malformed(g, JSON.stringify(plain));
      } else {
        kind = 'oversized';
        body = Buffer.from(JSON.stringify({ ...plain, body: 'x'.repeat(this.options.bodyLimitBytes + g.int(1000)) }));
      }
      headers['content-type'] = g.chance(0.85) ? 'application/json' : g.pick(CONTENT_TYPES);
      if (headers['content-type'] === '') delete headers['content-type'];
    } else if (g.chance(0.05)) {
      kind = 'unexpected-body';
      body = Buffer.from(JSON.stringify(g.weird()));
      headers['content-type'] = 'application/json';
    }

    const odd = g.int(25);
    if (odd === 0) {
      method = g.pick(METHODS_ODD);
      kind = 'odd-method';
    } else if (odd === 1) {
      method = g.pick(['GET', 'POST']);
      path = g.pick([
        '/',
        '/v1',
        '/v2/jobs',
        '/v1/jobs/',
        '//v1/stats',
        '/v1/jobs/a/b/c',
        '/%2e%2e/v1/stats',
        '/v1/jobs/%00',
        '/v1/jobs/%ZZ',
        '/v1/jobs/..%2f..%2fclearAll',
        `/v1/jobs/${'i'.repeat(4000)}`,
        '/docs/../clearAll',
        '/*',
        '/v1/jobs?'.padEnd(20000, 'q'),
      ]);
      kind = 'odd-path';
    } else if (odd === 2) {
      headers[
        g.pick(['x-forwarded-for', 'x-real-ip', 'host', 'accept', 'accept-encoding', 'transfer-encoding-x', 'x-a'])
      ] = g.pick(['', '127.0.0.1', '::1', 'evil.example', '*/*', 'gzip, br, zstd', 'x'.repeat(8000)]);
      kind = 'odd-header';
    } else if (odd === 3)
      return { kind: 'raw-bytes', method, path, headers, raw: this.rawRequest(method, path, headers, body) };
    return { kind, method, path, headers, ...(body === undefined ? {} : { body }) };
  }

  /** Requests node:http will not send: bad methods, control characters in headers, broken framing, huge headers. */
  private rawRequest(method: string, path: string, headers: Record<string, string>, _body: Buffer | undefined): Buffer {
    const g = this.g;
    const auth = headers['authorization'] ? `Authorization: ${headers['authorization']}\r\n` : '';
    const variants = [
      () =>
        `${g.pick(['FOO', 'G ET', 'GET\t', 'get', '\u00ffGET'])} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Connection: close\r\n\r\n`,
      () => `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}X-Bad: a\u0000b\r\nConnection: close\r\n\r\n`,
      () =>
        `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Length: 5\r\nContent-Length: 6\r\nConnection: close\r\n\r\n`,
      () =>
        `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Transfer-Encoding: chunked\r\nContent-Type: application/json\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
      () =>
        `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}X-Big: ${'b'.repeat(20_000)}\r\nConnection: close\r\n\r\n`,
      () => `${method} ${path} HTTP/9.9\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
      () => `${method} ${path}\r\n\r\n`,
      () =>
        `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: application/json\r\nContent-Length: -1\r\nConnection: close\r\n\r\n`,
      () => `${method} ${path.replace(/^\//, '')} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Connection: close\r\n\r\n`,
    ];
    const head = g.pick(variants)();
    // (A body shorter than its Content-Length is not sent: the server rightly waits for the rest until requestTimeout.)
    return Buffer.from(head, 'latin1');
  }
}
