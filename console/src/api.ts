/** The public HTTP API, as the console uses it: bearer token from sessionStorage, errors as ApiError. */
const TOKEN_KEY = 'delayq.token';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export const token = {
  get: (): string => sessionStorage.getItem(TOKEN_KEY) ?? '',
  set: (value: string): void => sessionStorage.setItem(TOKEN_KEY, value),
  clear: (): void => sessionStorage.removeItem(TOKEN_KEY),
};

/** The server's root: the console is served at <root>/console/. */
const root = location.pathname.replace(/\/console(\/.*)?$/, '');

export async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (token.get()) headers['authorization'] = `Bearer ${token.get()}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(root + path, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  const parsed = text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
  if (!response.ok) {
    const error = (parsed as { error?: { code: string; message: string; field?: string } }).error;
    throw new ApiError(
      response.status,
      error?.code ?? 'E_HTTP',
      error?.message ?? `HTTP ${response.status}`,
      error?.field,
    );
  }
  return parsed as T;
}

export const get = <T = any>(path: string) => api<T>('GET', path);
export const post = <T = any>(path: string, body: unknown = {}) => api<T>('POST', path, body);
export const put = <T = any>(path: string, body: unknown) => api<T>('PUT', path, body);
export const del = <T = any>(path: string) => api<T>('DELETE', path);

export const query = (params: Record<string, string | number | boolean | undefined | null>): string => {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== '');
  return entries.length ? '?' + new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString() : '';
};

export const STATES = ['delayed', 'ready', 'reserved', 'finished', 'dead', 'cancelled', 'expired'] as const;

export type Backoff =
  | { type: 'fixed'; delayMs: number }
  | { type: 'exponential'; delayMs: number; factor: number; maxDelayMs: number }
  | { type: 'list'; delaysMs: number[] };

export interface Job {
  id: string;
  topic: string;
  state: string;
  tag: string | null;
  bizKey: string | null;
  /** Absent when the job has no group. */
  group?: string;
  body: unknown;
  runAt: number;
  priority: number;
  ttrMs: number;
  ttlMs: number | null;
  retry: { maxAttempts: number; backoff: Backoff };
  attempts: number;
  lastError: string | null;
  createdAt: number;
  readyAt: number | null;
  reservedAt: number | null;
  finishedAt: number | null;
  deadlineAt: number | null;
}

export interface Outcome {
  result?: unknown;
  error: { message: string; code?: string; details?: unknown } | null;
  at: number;
}

export interface HistoryEntry {
  at: number;
  event: string;
  state: string;
  attempt: number;
  node: string;
  reason: string | null;
}

export interface TopicStats {
  topic: string;
  counts: Record<string, number>;
  nextDueAt: number | null;
  paused: boolean;
  pausedUntil: number | null;
}

export interface TopicPage {
  topics: TopicStats[];
  next: string | null;
  total: number;
}

export interface Consumer {
  id: string;
  node: string;
  kind: 'long-poll' | 'grpc-stream' | 'beanstalkd' | 'sink';
  topics: string[];
  since: number;
  remote: string | null;
  held: number;
}

export interface Held {
  job: Job;
  deadlineAt: number;
  node: string | null;
}

export interface Schedule {
  name: string;
  topic: string;
  job: Record<string, unknown>;
  cron: string | null;
  everyMs: number | null;
  timeZone: string;
  startAt: number | null;
  endAt: number | null;
  maxFires: number | null;
  missed: 'skip' | 'once' | 'each';
  catchUpMax: number;
  paused: boolean;
  fired: number;
  lastFiredAt: number | null;
  lastJobId: string | null;
  nextFireAt: number | null;
}

export interface Binding {
  topic: string;
  sink: { type: string; [key: string]: unknown };
  updatedAt: number;
}

/** A topic's dispatch rate limit (GET /v1/topics/{topic}/settings; docs/flow-control.md). */
export interface RateLimit {
  perSecond: number;
  burst: number;
}

export interface TopicSettings {
  topic: string;
  rateLimit?: RateLimit;
  /** At most this many jobs of one group reserved at once (docs/flow-control.md "Groups"). */
  groupConcurrency?: number;
  /** Each group's own rate limit (docs/flow-control.md "A rate per group"). */
  groupRateLimit?: RateLimit;
}
