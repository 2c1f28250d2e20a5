// The benchmark's own arithmetic and rendering (numbers are measured in bench/, never here): percentiles,
// per-run ratios, table cells, the SVG chart and the fixed-size job body.
import { describe, expect, it } from 'vitest';
import { percentile, summarize } from '../../bench/lib.js';
import { cell, Results, table } from '../../bench/results-table.js';
import { bodyFor, BODY_BYTES } from '../../bench/subject.js';
import { latenessChart } from '../../bench/svg-chart.js';

describe('bench arithmetic', () => {
  it('takes nearest-rank percentiles', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 50)).toBe(50);
    expect(percentile(sorted, 99)).toBe(99);
    expect(summarize([5, 1, 3])).toEqual({ p50: 3, p99: 5, max: 5, n: 3 });
  });

  it('pairs runs by index for the ratio to the reference and shows median (min–max)', () => {
    const r = new Results();
    for (const [ref, peer] of [
      [30, 10],
      [40, 10],
      [20, 10],
    ]) {
      r.add('enqueue', 'delayq · Redis', 'rate', ref);
      r.add('enqueue', 'BullMQ · hz 10', 'rate', peer);
    }
    expect(r.ratio('enqueue', 'BullMQ · hz 10', 'rate')).toEqual([3, 4, 2]);
    expect(cell(r.ratio('enqueue', 'BullMQ · hz 10', 'rate'), 2, '×')).toBe('3.00 × (2.00–4.00)');
    const md = table(r, 'enqueue', [{ metric: 'rate', header: 'jobs/s' }], 'rate');
    expect(md).toContain('| BullMQ · hz 10 | 10 (10–10) | 3.00 × (2.00–4.00) |');
    expect(md.split('\n')[0]).toBe('| system | jobs/s | delayq · Redis ÷ this (same run) |');
  });

  it('gives no ratio to a value of about 0, which would mean nothing', () => {
    const r = new Results();
    for (const [ref, beyond] of [
      [284, -0.4],
      [284, 0.2],
    ]) {
      r.add('memory', 'delayq · Redis', 'bytes', ref);
      r.add('memory', 'delayq · beyond the horizon', 'bytes', beyond);
    }
    const md = table(r, 'memory', [{ metric: 'bytes', header: 'bytes/job' }], 'bytes');
    expect(md).toContain('| delayq · beyond the horizon | -0 (-0–0) | – (this one ≈ 0) |');
  });

  it('ignores values that are not finite', () => {
    const r = new Results();
    r.add('memory', 'x', 'bytes', undefined);
    r.add('memory', 'x', 'bytes', Number.NaN);
    expect(r.values('memory', 'x', 'bytes')).toEqual([]);
  });

  it('pads every job body to the same JSON size', () => {
    expect(JSON.stringify(bodyFor(Date.now())).length).toBe(BODY_BYTES);
    expect(JSON.stringify(bodyFor(0)).length).toBe(BODY_BYTES);
  });

  it('draws one curve per system with one colour per system across panels, escaping names', () => {
    const svg = latenessChart([
      {
        title: 'a',
        series: [
          { name: 'x<y', samples: [1, 2, 3] },
          { name: 'z', samples: [] },
        ],
      },
      {
        title: 'b',
        series: [
          { name: 'z', samples: [5, 500] },
          { name: 'x<y', samples: [2] },
        ],
      },
    ]);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('x&lt;y');
    expect(svg).not.toContain('x<y');
    expect(svg.match(/<polyline/g)).toHaveLength(3);
    const colourOf = (name: string) =>
      [...svg.matchAll(new RegExp(`stroke="(#[0-9a-f]{6})" stroke-width="3"/>\\n<text[^>]*>${name}<`, 'g'))].map(
        (m) => m[1],
      );
    const xy = colourOf('x&lt;y');
    expect(xy).toHaveLength(2);
    expect(xy[0]).toBe(xy[1]);
    expect(colourOf('z')[0]).not.toBe(xy[0]);
  });
});
