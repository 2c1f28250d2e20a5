import { invalid } from './errors.js';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/;

/**
 * Parses one duration: a number of milliseconds, or text such as `250ms`, `30s`, `4m`, `1h`, `2d`.
 * A bare number in text is milliseconds. Throws E_VALIDATION naming `field`.
 */
export function parseDurationMs(value: unknown, field: string): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) throw invalid(field, 'must be a finite number ≥ 0');
    return Math.round(value);
  }
  if (typeof value !== 'string') throw invalid(field, 'must be a duration (ms, or text like "30s", "4m")');
  const match = DURATION.exec(value.trim());
  if (!match) throw invalid(field, `"${value}" is not a duration (examples: 500ms, 30s, 4m, 1h, 2d)`);
  const unit = (match[2] ?? 'ms') as keyof typeof UNIT_MS;
  return Math.round(Number(match[1]) * UNIT_MS[unit]);
}

/** Parses a schedule such as `4m,10m,10m,1h,2h,6h,15h` (or an array of durations) into milliseconds. */
export function parseDurationList(value: unknown, field: string): number[] {
  const items = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(items) || items.length === 0) {
    throw invalid(field, 'must be a non-empty list of durations, e.g. "4m,10m,1h"');
  }
  return items.map((item, index) => parseDurationMs(item, `${field}[${index}]`));
}
