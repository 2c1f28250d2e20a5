import type { EpochMs } from '../core/clock.js';
import type { BacklogState } from '../core/series-figures.js';
export { BACKLOG_STATES, SERIES_EVENTS, type BacklogState, type SeriesEvent } from '../core/series-figures.js';

/**
 * Store-wide figures over time (docs/series.md): per topic and time slot, how many jobs each transition
 * moved, how late the reserved ones were (lateness bucket counts, core/lateness.ts) and a sample of the
 * backlog. Every process on a shared store adds its own transitions to the same slots, so any process
 * reads the figures of all of them. Slots live in tiers of different widths; each expires on its own once
 * its tier no longer keeps it, so the cost follows the topics and the time kept, never the jobs.
 */
export interface JobSeries {
  /**
   * Adds each item's counts to its topic's slot in every tier (the slot holding `at`). Counts that
   * cannot be written throw (infrastructure); the caller decides whether to try again.
   */
  add(items: readonly SeriesCounts[], now: EpochMs): Promise<void>;
  /**
   * True for exactly one caller per slot start `at` of the finest tier, among every process on the store:
   * that one samples the backlog for the slot.
   */
  claimBacklogSample(at: EpochMs): Promise<boolean>;
  /** Sets the backlog of each topic in the slot holding `at` of every tier (a later sample in a slot replaces it). */
  setBacklog(at: EpochMs, backlog: readonly TopicBacklog[], now: EpochMs): Promise<void>;
  /** The slots of one tier (its `slotMs`) starting in [from, to), of one topic or of all. */
  read(query: SeriesQuery): Promise<SeriesSlot[]>;
}

/** One tier: slots `slotMs` wide, kept `keepMs` after they end. */
export interface SeriesTier {
  readonly slotMs: number;
  readonly keepMs: number;
}

const HOUR_MS = 3_600_000;

/** Finest first: ten-second slots for two hours, five-minute slots for a day and an hour. */
export const SERIES_TIERS: readonly SeriesTier[] = [
  { slotMs: 10_000, keepMs: 2 * HOUR_MS },
  { slotMs: 300_000, keepMs: 25 * HOUR_MS },
];

/**
 * A slot's fields: a transition's name (`push`…), `l<i>` for lateness bucket i, `b:<state>` for the
 * backlog sample. Counts add up; backlog fields are replaced.
 */
export const latenessField = (bucket: number): string => `l${bucket}`;
export const backlogField = (state: BacklogState): string => `b:${state}`;

/** Counts to add to one topic's slot. */
export interface SeriesCounts {
  topic: string;
  /** A time inside the slot (epoch ms). */
  at: EpochMs;
  /** field → amount to add. */
  counts: Readonly<Record<string, number>>;
}

export interface TopicBacklog {
  topic: string;
  counts: Readonly<Record<BacklogState, number>>;
}

export interface SeriesQuery {
  /** The tier's slot width. */
  slotMs: number;
  /** Slot starts in [from, to). */
  from: EpochMs;
  to: EpochMs;
  /** One topic; absent: every topic with a slot in range. */
  topic?: string | undefined;
}

export interface SeriesSlot {
  topic: string;
  /** The slot's start. */
  at: EpochMs;
  fields: Record<string, number>;
}

/** The start of the slot of width `slotMs` holding `at`. */
export const slotStart = (at: EpochMs, slotMs: number): EpochMs => Math.floor(at / slotMs) * slotMs;

/** How long a slot still has to be kept at `now` (at least 1 ms, so a key never lives forever). */
export const slotTtlMs = (slotAt: EpochMs, tier: SeriesTier, now: EpochMs): number =>
  Math.max(1, slotAt + tier.slotMs + tier.keepMs - now);
