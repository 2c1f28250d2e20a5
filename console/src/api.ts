/** The public HTTP API, as the console uses it: bearer token from sessionStorage, errors as ApiError. */
const TOKEN_KEY = 'delayq.token';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
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
    const error = (parsed as { error?: { code: string; message: string } }).error;
    throw new ApiError(response.status, error?.code ?? 'E_HTTP', error?.message ?? `HTTP ${response.status}`);
  }
  return parsed as T;
}

export const get = <T = any>(path: string) => api<T>('GET', path);
export const post = <T = any>(path: string, body: unknown = {}) => api<T>('POST', path, body);

export const query = (params: Record<string, string | number | undefined>): string => {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined && v !== '') as [string, string][];
  return entries.length ? '?' + new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString() : '';
};

export interface Job {
  id: string;
  topic: string;
  state: string;
  tag: string | null;
  bizKey: string | null;
  body: unknown;
  runAt: number;
  attempts: number;
  lastError: string | null;
  createdAt: number;
  readyAt: number | null;
  reservedAt: number | null;
  finishedAt: number | null;
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
  paused?: boolean;
}

export interface Schedule {
  name: string;
  topic: string;
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
