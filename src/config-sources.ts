/**
 * The pieces of configuration loading that know nothing of the options themselves (config.ts): merging the
 * sources, setting a nested option, reading the file, the tokens' short form, freezing the result.
 */
import { readFileSync } from 'node:fs';
import { DelayqError } from './core/errors.js';

/** Sets the option at `path` (['http', 'port']) in a nested object, making the levels it lacks. */
export function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

/** `extra` over `base`, nested objects merged (a backoff object replaced whole), undefined values skipped. */
export function deepMerge(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) continue;
    const current = out[key];
    out[key] = isPlainObject(value) && isPlainObject(current) && key !== 'backoff' ? deepMerge(current, value) : value;
  }
  return out;
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** "a,b=orders.|billing." → [{token:a}, {token:b, topics:[orders., billing.]}]; JSON is also accepted. */
export function parseTokens(text: string): unknown {
  if (text.trim().startsWith('[')) return JSON.parse(text);
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((item) => {
      const [token, prefixes] = item.split('=', 2) as [string, string | undefined];
      return prefixes === undefined ? { token } : { token, topics: prefixes.split('|').filter(Boolean) };
    });
}

/** The JSON object of a config file, or E_CONFIG naming the file. */
export function readFile(file: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new DelayqError('E_CONFIG', `config file ${file}: ${(err as Error).message}`, { field: 'file', cause: err });
  }
  if (!isPlainObject(parsed))
    throw new DelayqError('E_CONFIG', `config file ${file}: must hold a JSON object`, { field: 'file' });
  return parsed;
}

/** The merged config frozen all the way down, so no part of the process can change an option. */
export function deepFreeze<T>(value: T): Readonly<T> {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
