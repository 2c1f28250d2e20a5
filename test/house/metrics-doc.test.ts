// docs/metrics.md lists every series the code registers, and no other: each prom-client metric constructed in
// src/ (`new Counter|Gauge|Histogram|Summary({ name: 'delayq_…' })`) against the names in the doc's series
// table; prom-client's default process metrics, registered by collectDefaultMetrics, against the table's
// `process_*` / `nodejs_*` row. The Grafana dashboard beside the doc queries only series the doc lists.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const METRIC = /new (Counter|Gauge|Histogram|Summary)\s*(<[^>]*>)?\(\{/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** The name of every metric constructed in src/; a name that is not a string literal fails the test. */
function registered(): { names: Set<string>; defaults: boolean } {
  const names = new Set<string>();
  let defaults = false;
  for (const file of sources(join(root, 'src'))) {
    const text = readFileSync(file, 'utf8');
    if (/\bcollectDefaultMetrics\(/.test(text)) defaults = true;
    for (const m of text.matchAll(METRIC)) {
      const name = /^\s*name:\s*'([a-z_:][a-z0-9_:]*)'/.exec(text.slice(m.index + m[0].length))?.[1];
      expect(name, `${file}: a ${m[1]} whose name is not the first field, as a string literal`).toBeDefined();
      names.add(name!);
    }
  }
  return { names, defaults };
}

/** The series table of docs/metrics.md: the backticked names in each row's first cell. */
function documented(): Set<string> {
  const doc = readFileSync(join(root, 'docs/metrics.md'), 'utf8');
  const table = doc.slice(doc.indexOf('## Series'), doc.indexOf('\n## ', doc.indexOf('## Series') + 1));
  const cells = [...table.matchAll(/^\| ([^|]+) \|/gm)].map((m) => m[1]!);
  return new Set(cells.flatMap((cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)));
}

describe('docs/metrics.md', () => {
  it('lists every series registered in src/, and only those', () => {
    const { names, defaults } = registered();
    const doc = documented();
    expect(names.size).toBeGreaterThan(10);
    const ours = [...doc].filter((name) => name.startsWith('delayq_')).sort();
    expect(ours).toEqual([...names].sort());
    expect(doc.has('process_*') && doc.has('nodejs_*')).toBe(defaults);
  });

  it("Grafana dashboard's queries name only documented series", () => {
    const dashboard = JSON.parse(readFileSync(join(root, 'docs/grafana-dashboard.json'), 'utf8')) as {
      panels: { title: string; targets?: { expr: string }[] }[];
    };
    const doc = documented();
    const known = (series: string) =>
      doc.has(series.replace(/_(bucket|sum|count)$/, '')) || /^(process|nodejs)_/.test(series);
    for (const panel of dashboard.panels) {
      for (const { expr } of panel.targets ?? []) {
        for (const [series] of expr.matchAll(/\b(delayq|process|nodejs)_[a-z0-9_]+/g)) {
          expect(known(series), `panel "${panel.title}": ${series}`).toBe(true);
        }
      }
    }
    const lag = dashboard.panels.find((p) =>
      p.targets?.some((t) => t.expr.includes('delayq_journal_write_lag_seconds_bucket')),
    );
    expect(lag?.title).toMatch(/journal write lag/i);
  });
});
