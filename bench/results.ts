// One number per (scenario, subject, metric, round). A value recorded with its round keeps its place, so a
// subject that failed in one round leaves a hole there instead of shifting its later rounds onto other
// subjects' rounds when ratios pair them.
import { median } from './lib.js';

type PerRound = (number | undefined)[];

export class Results {
  private readonly data = new Map<string, Map<string, Map<string, PerRound>>>();

  /** `round` counts from 1; without it the value goes after the last one recorded. */
  add(scenario: string, subject: string, metric: string, value: number | undefined, round?: number): void {
    if (value === undefined || !Number.isFinite(value)) return;
    let bySubject = this.data.get(scenario);
    if (!bySubject) this.data.set(scenario, (bySubject = new Map()));
    let byMetric = bySubject.get(subject);
    if (!byMetric) bySubject.set(subject, (byMetric = new Map()));
    let values = byMetric.get(metric);
    if (!values) byMetric.set(metric, (values = []));
    if (round === undefined) values.push(value);
    else {
      while (values.length < round - 1) values.push(undefined);
      values[round - 1] = value;
    }
  }

  /** The values by round, undefined where a round recorded none. */
  perRound(scenario: string, subject: string, metric: string): PerRound {
    return this.data.get(scenario)?.get(subject)?.get(metric) ?? [];
  }

  /** The values recorded, holes left out. */
  values(scenario: string, subject: string, metric: string): number[] {
    return this.perRound(scenario, subject, metric).filter((v): v is number => v !== undefined);
  }

  median(scenario: string, subject: string, metric: string): number {
    const v = this.values(scenario, subject, metric);
    return v.length ? median(v) : Number.NaN;
  }

  /** Every value of `scenario` taken from `other`, this run's own values of it dropped. */
  replaceScenario(scenario: string, other: Results): void {
    const fresh = other.data.get(scenario);
    if (fresh) this.data.set(scenario, fresh);
    else this.data.delete(scenario);
  }

  subjects(scenario: string): string[] {
    return [...(this.data.get(scenario)?.keys() ?? [])];
  }

  scenarios(): string[] {
    return [...this.data.keys()];
  }

  toJSON(): Record<string, Record<string, Record<string, (number | null)[]>>> {
    const out: Record<string, Record<string, Record<string, (number | null)[]>>> = {};
    for (const [scenario, bySubject] of this.data) {
      const s: Record<string, Record<string, (number | null)[]>> = (out[scenario] = {});
      for (const [subject, byMetric] of bySubject) {
        const m: Record<string, (number | null)[]> = (s[subject] = {});
        for (const [metric, values] of byMetric) m[metric] = values.map((v) => v ?? null);
      }
    }
    return out;
  }

  static fromJSON(json: Record<string, Record<string, Record<string, (number | null)[]>>>): Results {
    const results = new Results();
    for (const [scenario, bySubject] of Object.entries(json))
      for (const [subject, byMetric] of Object.entries(bySubject))
        for (const [metric, values] of Object.entries(byMetric))
          values.forEach((v, i) => results.add(scenario, subject, metric, v ?? undefined, i + 1));
    return results;
  }
}

/** this ÷ peer for each round both have a value in (NaN where either is missing or the peer is 0). */
export function ratiosByRound(mine: PerRound, theirs: PerRound): number[] {
  const out: number[] = [];
  for (let i = 0; i < Math.max(mine.length, theirs.length); i++) {
    const a = mine[i];
    const b = theirs[i];
    out.push(a === undefined || b === undefined || b === 0 ? Number.NaN : a / b);
  }
  return out;
}

/** The median of the finite values, NaN when there is none. */
export function finiteMedian(values: readonly number[]): number {
  const finite = values.filter(Number.isFinite);
  return finite.length ? median(finite) : Number.NaN;
}
