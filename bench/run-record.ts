// The results file of one run (bench/results/benchmarks.json for the full run): everything BENCHMARKS.md is
// rendered from, so `npm run bench -- --render-only` can write the page again without measuring. Files
// written before the rounds and the machine were recorded still load; the report says what they lack.
import { readFileSync } from 'node:fs';
import type { RoundLoad } from './host-load.js';
import type { MachineInfo } from './machine.js';
import { Results } from './results.js';

export interface RunInfo {
  quick: boolean;
  runs: number;
  pending: number;
  startedAt: string;
  finishedAt: string;
  /** One line (older files), or the structured description. */
  machine: string | MachineInfo;
  /** For a file completed after its run: what was added, and from where. */
  provenance?: string;
  loadBefore: number[];
  loadAfter: number[];
  command: string;
  mode: Record<string, number>;
  /** How each subject was set up, by subject. */
  notes: Record<string, string>;
  failures: string[];
  /** The lateness chart, relative to the report. */
  chartFile: string;
}

export interface RunRecord {
  info: RunInfo;
  results: Results;
  /** Per scenario, each round's order of subjects and the host's load; absent in older files. */
  rounds: Record<string, RoundLoad[]> | undefined;
}

interface RunFile {
  info: Omit<RunInfo, 'startedAt' | 'finishedAt'> & { startedAt: string | Date; finishedAt: string | Date };
  results: Parameters<typeof Results.fromJSON>[0];
  rounds?: Record<string, RoundLoad[]>;
}

export function toJson(record: RunRecord): string {
  return JSON.stringify({ info: record.info, rounds: record.rounds, results: record.results }, null, 1);
}

export function readRunRecord(path: string): RunRecord {
  const file = JSON.parse(readFileSync(path, 'utf8')) as RunFile;
  return {
    info: { ...file.info, startedAt: String(file.info.startedAt), finishedAt: String(file.info.finishedAt) },
    results: Results.fromJSON(file.results),
    rounds: file.rounds,
  };
}
