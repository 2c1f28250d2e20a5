// The figures of delayq over the wire (plain clients, the beanstalkd protocol beside its floor, lateness by
// stage, the HTTP layer against Fastify), the independent harness's table, and a full run's page: what the
// harness computes from the values it records (numbers are measured in bench/, never here).
import { describe, expect, it } from 'vitest';
import { clientTable, ratioSpan } from '../../bench/client-table.js';
import { figureRows, figureTable } from '../../bench/figure-table.js';
import { FIGURES, type Figure } from '../../bench/figures.js';
import { FLOOR_SINGLE, SDK_PUSHES } from '../../bench/http-floor.js';
import { storeCalls } from '../../bench/lateness-breakdown.js';
import { renderReport } from '../../bench/report.js';
import { Results } from '../../bench/results.js';
import { commandsBetween } from '../../bench/run-context.js';
import { fullRun } from './full-run.js';

const figure = (id: string): Figure => FIGURES.find((f) => f.id === id)!;
const options = {
  root: '',
  resultsFile: 'bench/results/x.json',
  latenessChart: undefined,
  ratioChart: 'bench/results/x-ratios.svg',
  renderCommand: 'npm run bench -- --render-only',
  detail: { link: 'bench/results/x-detail.md', root: '../../', back: '../../BENCHMARKS.md' },
};

describe("a full run's pages", () => {
  const { markdown, detail } = renderReport(fullRun(), options);

  it('keep BENCHMARKS.md to 300 lines, the figures of delayq on its own on the second page', () => {
    expect(markdown.split('\n').length).toBeLessThanOrEqual(300);
    const titles = (page: string) => [...page.matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
    const mode = fullRun().info.mode;
    for (const f of FIGURES) {
      const page = f.page === 'detail' ? detail! : markdown;
      expect(titles(page), f.id).toContain(f.title(mode));
    }
    expect(markdown).toContain(
      'The same run, delayq on its own: [bench/results/x-detail.md](bench/results/x-detail.md)',
    );
    expect(detail).toContain('[its first page](../../BENCHMARKS.md)');
    // The second page's links into docs/ start from its own folder.
    expect(detail).toMatch(/\]\(\.\.\/\.\.\/docs\/performance\.md#/);
    expect(markdown).not.toContain('Not in this run');
  });

  it('state every figure of both pages with its scenario, command, bound and rounds', () => {
    for (const section of [markdown, detail!].flatMap((p) => p.split('\n## ').slice(1))) {
      if (!section.includes('\n| subject | round 1 |')) continue;
      expect(section).toMatch(/ is better\./);
      expect(section).toMatch(/\nRounds \(/);
      expect(section).toMatch(/\nCommand: `npm run bench -- --only=[\w,-]+`\./);
      expect(section).toContain('\nWhat bounds it: ');
    }
  });
});

describe('the wire figures', () => {
  it("divide each Redis push's server CPU by the SDK's of the same round, and show only Redis rows", () => {
    const r = new Results();
    const add = (subject: string, values: number[], cmds: number) =>
      values.forEach((v, i) => {
        r.add('api-enqueue', subject, 'serverUs', v, i + 1);
        r.add('api-enqueue', subject, 'cmds', cmds, i + 1);
      });
    add('delayq · Redis · SDK', [10, 20, 10], 0.5);
    add('delayq · Redis · Python http.client', [15, 20, 20], 1);
    add('delayq · embedded · SDK', [99, 99, 99], 0);
    const rows = figureRows(figure('push-cost'), r);
    expect(rows.map((x) => x.subject)).toEqual(['delayq · Redis · Python http.client', 'delayq · Redis · SDK']);
    expect(figureTable(figure('push-cost'), rows)).toContain(
      '| delayq · Redis · Python http.client | 15.0 | 20.0 | 20.0 | 20.0 | 25 % ⚠ | 1.50, 1.00, 2.00 → 1.50× | – | – | 1.00 | – |',
    );
  });

  it("set a single push's server CPU beside the SDK's batched push and the bare route's, round by round", () => {
    const r = new Results();
    for (const [subject, values] of [
      [SDK_PUSHES, [10, 8, 12]],
      [FLOOR_SINGLE, [30, 24, 30]],
      ['delayq · Redis · node:http, one request per push', [40, 40, 36]],
    ] as const)
      values.forEach((v, i) => r.add('push-floor', subject, 'serverUs', v, i + 1));
    const rows = figureRows(figure('push-floor'), r);
    const single = rows.find((x) => x.subject.startsWith('delayq · Redis · node:http'))!;
    expect(single.ratios.map((x) => [x.peer, x.byRound])).toEqual([
      [SDK_PUSHES, [4, 5, 3]],
      [FLOOR_SINGLE, [40 / 30, 40 / 24, 36 / 30]],
    ]);
    // The floor itself against the SDK: what no grouping behind one request a push can go below.
    expect(rows.find((x) => x.subject === FLOOR_SINGLE)!.ratios[0]).toMatchObject({ peer: SDK_PUSHES, median: 3 });
  });

  it('set the beanstalkd protocol beside the durable floor and beanstalkd, the peers last', () => {
    const r = new Results();
    for (const [subject, rate] of [
      ['beanstalkd', 30],
      ['durable floor (Node + Redis)', 27],
      ['delayq · Redis · beanstalkd protocol', 24],
    ] as const)
      r.add('bs-drain', subject, 'rate', rate, 1);
    const rows = figureRows(figure('bs-drain'), r);
    expect(rows.map((x) => x.subject)).toEqual([
      'delayq · Redis · beanstalkd protocol',
      'beanstalkd',
      'durable floor (Node + Redis)',
    ]);
    expect(rows[0]!.ratios.map((x) => [x.peer, x.median])).toEqual([
      ['durable floor (Node + Redis)', 24 / 27],
      ['beanstalkd', 0.8],
    ]);
  });

  it('count a server store operation in Prometheus text, every outcome summed', () => {
    const text = [
      '# TYPE delayq_store_call_seconds histogram',
      'delayq_store_call_seconds_bucket{le="0.001",operation="promoteDue",outcome="ok"} 7',
      'delayq_store_call_seconds_count{operation="promoteDue",outcome="ok"} 12',
      'delayq_store_call_seconds_count{operation="promoteDue",outcome="error"} 1',
      'delayq_store_call_seconds_count{operation="reserve",outcome="ok"} 40',
    ].join('\n');
    expect(storeCalls(text, 'promoteDue')).toBe(13);
    expect(storeCalls(text, 'reserve')).toBe(40);
    expect(storeCalls(text, 'finishMany')).toBe(0);
  });

  it("count Redis commands between two readings, the benchmark's own left out", () => {
    const before = new Map([
      ['evalsha', { calls: 10, usec: 0 }],
      ['info', { calls: 3, usec: 0 }],
    ]);
    const after = new Map([
      ['evalsha', { calls: 15, usec: 0 }],
      ['hget', { calls: 2, usec: 0 }],
      ['info', { calls: 9, usec: 0 }],
      ['flushall', { calls: 1, usec: 0 }],
    ]);
    expect(commandsBetween(before, after)).toBe(7);
  });
});

describe("the independent harness's table", () => {
  it('gives each delayq path its median and its ratios to BullMQ and beanstalkd, lowest–highest round', () => {
    const r = new Results();
    [10_000, 12_000].forEach((v, i) => r.add('enqueue', 'BullMQ · hz 10', 'rate', v, i + 1));
    [40_000, 40_000].forEach((v, i) => r.add('enqueue', 'beanstalkd', 'rate', v, i + 1));
    [12_000, 12_000].forEach((v, i) => r.add('api-enqueue', 'delayq · Redis · SDK', 'rate', v, i + 1));
    [3000, 6000].forEach((v, i) => r.add('api-enqueue', 'delayq · Redis · Python http.client', 'rate', v, i + 1));
    r.add('late-api', 'delayq · Redis · SDK', 'p99', 8, 1);
    r.add('late-api', 'BullMQ · hz 10', 'p99', 80, 1);
    const table = clientTable(r, { lateApiJobs: 30_000 });
    expect(table).toContain('| 1k due/s p99 (30,000 preloaded, spread due times) |');
    expect(table).toContain('| BullMQ (its own client in the app) | 10.0k | – | 80 ms |');
    expect(table).toContain(
      '| delayq SDK / Worker (Redis) | 12.0k (1.00–1.20× BullMQ, 0.30× beanstalkd) | – | 8 ms (0.10× BullMQ) |',
    );
    expect(table).toContain('| Python http.client 3,000 (0.30–0.50× BullMQ, 0.08–0.15× beanstalkd) |');
    expect(clientTable(new Results(), {})).toBe('');
  });

  it('gives no ratio for rounds the peer lacks', () => {
    expect(ratioSpan([1, 2], [undefined, 4])).toBe('0.50×');
    expect(ratioSpan([1], [undefined])).toBeUndefined();
  });
});
