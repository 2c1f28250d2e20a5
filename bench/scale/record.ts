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
}

export interface ScaleRecord {
  info: ScaleInfo;
  points: ScalePoint[];
}

export const scaleJson = (record: ScaleRecord): string => JSON.stringify(record, null, 1);

export function readScaleRecord(path: string): ScaleRecord {
  return JSON.parse(readFileSync(path, 'utf8')) as ScaleRecord;
}
