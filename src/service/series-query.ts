/** A read of the figures over time (GET /v1/stats/series): its input, checked, with defaults and its tier. */
import type { EpochMs } from '../core/clock.js';
import { invalid } from '../core/errors.js';
import { validateTopic } from '../core/job-input.js';
import { LIMITS } from '../core/limits.js';
import { SERIES_TIERS, slotStart, type SeriesTier } from '../store/job-series.js';

export interface SeriesInput {
  topic?: string | undefined;
  /** Epoch ms, inclusive. @defaultValue to − windowMs */
  from?: number | undefined;
  /** Epoch ms, exclusive. @defaultValue just after now (the slot in progress counts) */
  to?: number | undefined;
  /** How far back from `to`, when `from` is not given. @defaultValue an hour */
  windowMs?: number | undefined;
  /** @defaultValue a minute */
  stepMs?: number | undefined;
}

export const DEFAULT_SERIES = { windowMs: 3_600_000, stepMs: 60_000 } as const;

export interface SeriesRange {
  topic?: string;
  /** Start of the first step: `from` rounded down to the tier's slot. */
  from: EpochMs;
  /** End of the last step: from + steps × stepMs. */
  to: EpochMs;
  stepMs: number;
  /** The tier read: the finest whose slots divide stepMs and that still keeps `from`. */
  tier: SeriesTier;
}

const FINEST = SERIES_TIERS[0]!;

/** Checks a series request and fills its defaults; errors name the field. */
export function normalizeSeriesQuery(input: SeriesInput, now: EpochMs): SeriesRange {
  const stepMs = input.stepMs ?? DEFAULT_SERIES.stepMs;
  if (!Number.isSafeInteger(stepMs) || stepMs <= 0 || stepMs % FINEST.slotMs !== 0)
    throw invalid('stepMs', `must be a positive multiple of ${FINEST.slotMs} ms`);
  if (input.from !== undefined && input.windowMs !== undefined)
    throw invalid('windowMs', 'give either from or windowMs, not both');
  const windowMs = input.windowMs ?? DEFAULT_SERIES.windowMs;
  if (!Number.isSafeInteger(windowMs) || windowMs <= 0) throw invalid('windowMs', 'must be a positive integer of ms');
  const to = input.to ?? now + 1;
  if (!Number.isSafeInteger(to) || to <= 0) throw invalid('to', 'must be epoch milliseconds');
  const from = input.from ?? to - windowMs;
  if (!Number.isSafeInteger(from) || from < 0) throw invalid('from', 'must be epoch milliseconds');
  if (to <= from) throw invalid('to', 'must be epoch milliseconds after from');
  const tier = SERIES_TIERS.find((t) => stepMs % t.slotMs === 0 && from > now - t.keepMs);
  if (!tier) {
    const reach = SERIES_TIERS.map((t) => `${t.keepMs / 3_600_000} h with steps that are multiples of ${t.slotMs} ms`);
    throw invalid(input.from === undefined ? 'windowMs' : 'from', `the series reaches back ${reach.join(', ')}`);
  }
  const start = slotStart(from, tier.slotMs);
  const steps = Math.ceil((to - start) / stepMs);
  if (steps > LIMITS.seriesMaxSteps)
    throw invalid('stepMs', `(to − from) / stepMs must be at most ${LIMITS.seriesMaxSteps} steps`);
  return {
    from: start,
    to: start + steps * stepMs,
    stepMs,
    tier,
    ...(input.topic !== undefined ? { topic: validateTopic(input.topic) } : {}),
  };
}
