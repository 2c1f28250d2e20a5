// The results file of `npm run bench:scale` (bench/results/scale.json by default): every value by shape and
// backlog, and what the page needs to state the run (when, command, machine, counts, failures). The page
// is rendered from this file only (`npm run bench:scale -- --render-only`).
import { readFileSync } from 'node:fs';
import type { MachineInfo } from '../machine.js';
import type { ScaleCounts } from './options.js';

export interface ScalePoint {
  /** The shape's name (SHAPE_NAMES), or BullMQ's. */
  shape: string;
  /** Jobs pushed before this backlog's measurements (all pending: none is due within the run). */
  backlog: number;
  metrics: Record<string, number>;
}

export interface ScaleInfo {
  startedAt: string;
  finishedAt: string;
  command: string;
  machine: MachineInfo;
  loadBefore: number[];
  loadAfter: number[];
  max: number;
  checkpoints: number[];
  shapes: string[];
  counts: ScaleCounts;
  failures: string[];
  /** Reads the measured build does not offer (answered 404), by read id. */
  missingReads: string[];
  /** Later runs (`--merge`) whose shapes replaced this run's points of those shapes. */
  merged?: MergedRun[];
}

/** A run merged into an earlier one's results: which shapes it measured, when, on what, from what load. */
export interface MergedRun {
  shapes: string[];
  startedAt: string;
  finishedAt: string;
  command: string;
  commit: string;
  loadBefore: number[];
  loadAfter: number[];
  /** Its unrecorded reads before the recorded ones (ScaleCounts.warmReads), where the first run's differ. */
  warmReads?: number;
  /** The machine's CPU model (runs merged since 2026-11-29; sessions may run on different machines). */
  cpu?: string;
}

export interface ScaleRecord {
  info: ScaleInfo;
  points: ScalePoint[];
}

export const scaleJson = (record: ScaleRecord): string => JSON.stringify(record, null, 1);

export function readScaleRecord(path: string): ScaleRecord {
  return JSON.parse(readFileSync(path, 'utf8')) as ScaleRecord;
}

/**
 * `--merge`: the earlier results with `run`'s shapes taken out (points and failures), `run` listed as merged;
 * the caller adds the new points and sets the merged run's finish.
 */
export function mergeRun(previous: ScaleRecord, run: ScaleInfo, shapes: readonly string[]): MergedRun {
  const replaced = new Set(shapes);
  previous.points = previous.points.filter((p) => !replaced.has(p.shape));
  previous.info.failures = previous.info.failures.filter((f) => !shapes.some((s) => f.startsWith(s)));
  const merged: MergedRun = {
    shapes: [...shapes],
    startedAt: run.startedAt,
    finishedAt: '',
    command: run.command,
    commit: run.machine.commit,
    loadBefore: run.loadBefore,
    loadAfter: [],
    ...(run.counts.warmReads ? { warmReads: run.counts.warmReads } : {}),
    cpu: run.machine.cpu,
  };
  previous.info.merged = [
    ...(previous.info.merged ?? [])
      .map((m) => ({ ...m, shapes: m.shapes.filter((s) => !replaced.has(s)) }))
      .filter((m) => m.shapes.length),
    merged,
  ];
  return merged;
}
