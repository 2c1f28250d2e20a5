/** Each scenario appends its figure here; RELIABILITY.md is written from these lines. */
import { appendFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { CHAOS_ROOT, LONG } from './chaos-processes.js';

export const FIGURES_FILE = join(CHAOS_ROOT, 'figures.jsonl');

export function recordFigure(name: string, figure: object): void {
  const line = {
    name,
    form: LONG ? 'long' : 'short',
    date: new Date().toISOString(),
    machine: `${cpus().length}×${cpus()[0]?.model ?? 'cpu'}`,
    node: process.version,
    ...figure,
  };
  appendFileSync(FIGURES_FILE, JSON.stringify(line) + '\n');
  console.log(`[chaos] ${name}: ${JSON.stringify(figure)}`);
}
