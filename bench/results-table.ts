// Collects one number per (scenario, system, metric, run) and renders median (min–max) tables with the
// ratio to the reference system taken run by run.
import { fmt, median } from './lib.js';

export const REFERENCE = 'delayq · Redis';

export class Results {
  private readonly data = new Map<string, Map<string, Map<string, number[]>>>();

  add(scenario: string, system: string, metric: string, value: number | undefined): void {
    if (value === undefined || !Number.isFinite(value)) return;
    let bySystem = this.data.get(scenario);
    if (!bySystem) this.data.set(scenario, (bySystem = new Map()));
    let byMetric = bySystem.get(system);
    if (!byMetric) bySystem.set(system, (byMetric = new Map()));
    let values = byMetric.get(metric);
    if (!values) byMetric.set(metric, (values = []));
    values.push(value);
  }

  values(scenario: string, system: string, metric: string): number[] {
    return this.data.get(scenario)?.get(system)?.get(metric) ?? [];
  }

  median(scenario: string, system: string, metric: string): number {
    const v = this.values(scenario, system, metric);
    return v.length ? median(v) : Number.NaN;
  }

  systems(scenario: string): string[] {
    return [...(this.data.get(scenario)?.keys() ?? [])];
  }

  /** Ratio reference ÷ system per run (runs paired by index), as median (min–max). */
  ratio(scenario: string, system: string, metric: string, reference = REFERENCE): number[] {
    const ref = this.values(scenario, reference, metric);
    const other = this.values(scenario, system, metric);
    const out: number[] = [];
    for (let i = 0; i < Math.min(ref.length, other.length); i++) if (other[i]! !== 0) out.push(ref[i]! / other[i]!);
    return out;
  }

  toJSON(): unknown {
    const out: Record<string, Record<string, Record<string, number[]>>> = {};
    for (const [s, bySystem] of this.data) {
      out[s] = {};
      for (const [sys, byMetric] of bySystem) out[s][sys] = Object.fromEntries(byMetric);
    }
    return out;
  }
}

export interface Column {
  metric: string;
  header: string;
  digits?: number;
  unit?: string;
}

export function cell(values: readonly number[], digits = 0, unit = ''): string {
  if (values.length === 0) return '–';
  const m = median([...values]);
  const u = unit ? ` ${unit}` : '';
  if (values.length === 1) return `${fmt(m, digits)}${u}`;
  return `${fmt(m, digits)}${u} (${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)})`;
}

/** A ratio cell; none where this system's value is about 0 (bytes of a job kept out of Redis), as a ratio to ≈ 0 means nothing. */
function ratioCell(results: Results, scenario: string, system: string, metric: string): string {
  const values = results.values(scenario, system, metric);
  if (values.some((v) => Math.abs(v) < 1)) return '– (this one ≈ 0)';
  return cell(results.ratio(scenario, system, metric), 2, '×');
}

/**
 * A markdown table: one row per system, one column per metric, and a last column with the reference's
 * value ÷ this system's, for `ratioMetric`, computed within each run.
 */
export function table(results: Results, scenario: string, columns: readonly Column[], ratioMetric?: string): string {
  const systems = results.systems(scenario);
  if (systems.length === 0) return '_not run_\n';
  const head = ['system', ...columns.map((c) => c.header)];
  if (ratioMetric) head.push(`${REFERENCE} ÷ this (same run)`);
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => ' --- ').join('|')}|`];
  for (const system of systems) {
    const row = [system];
    for (const c of columns) row.push(cell(results.values(scenario, system, c.metric), c.digits ?? 0, c.unit ?? ''));
    if (ratioMetric) row.push(system === REFERENCE ? '' : ratioCell(results, scenario, system, ratioMetric));
    lines.push(`| ${row.join(' | ')} |`);
  }
  return `${lines.join('\n')}\n`;
}
