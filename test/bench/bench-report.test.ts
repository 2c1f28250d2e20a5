// The benchmark's own arithmetic and rendering (numbers are measured in bench/, never here): percentiles,
// per-round values and ratios, the rounds' rotation, the page's format (every figure with its scenario, its
// rounds and their load), the SVG charts, and the committed BENCHMARKS.md as the renderer makes it.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { figureRows, figureTable } from '../../bench/figure-table.js';
import { BULLMQ_DEBOUNCE } from '../../bench/debounce-storm.js';
import { GROUPS_ROW, NO_GROUPS_ROW, WAIT_GROUPS_ROW } from '../../bench/flow-control.js';
import { FIGURES, type Figure } from '../../bench/figures.js';
import { rotate, type RoundLoad } from '../../bench/host-load.js';
import { percentile, summarize } from '../../bench/lib.js';
import { ratioChart } from '../../bench/ratio-chart.js';
import { DEFAULT_PAGE, DEFAULT_RESULTS, REPO_ROOT, reportFor } from '../../bench/render.js';
import { figureCommand, renderReport } from '../../bench/report.js';
import { Results, ratiosByRound } from '../../bench/results.js';
import { mergeIntoRun } from '../../bench/merge-run.js';
import { readRunRecord, toJson, type RunRecord } from '../../bench/run-record.js';
import { bodyFor, BODY_BYTES } from '../../bench/subject.js';
import { latenessChart } from '../../bench/svg-chart.js';

const figure = (id: string): Figure => FIGURES.find((f) => f.id === id)!;

/** A run of `rounds` rounds in the new format: enqueue and burst for delayq, BullMQ and beanstalkd, with each round's load. */
function syntheticRun(rounds = 3): RunRecord {
  const results = new Results();
  const rates: Record<string, number[]> = {
    'delayq · Redis': [30, 40, 20],
    'BullMQ · hz 10': [10, 10, 10],
    beanstalkd: [20, 20, 20],
  };
  const load: Record<string, RoundLoad[]> = {};
  for (const scenario of ['enqueue', 'burst']) {
    for (let round = 1; round <= rounds; round++) {
      const order = rotate(Object.keys(rates), round);
      for (const subject of order) results.add(scenario, subject, 'rate', rates[subject]![round - 1], round);
      results.add(`api-${scenario}`, 'delayq · Redis · SDK', 'rate', 15, round);
      (load[scenario] ??= []).push({
        round,
        order,
        startedAt: '2026-11-27T10:00:00.000Z',
        loadBefore: [0.5 + round, 0.4, 0.3],
        loadAfter: [1.5, 0.5, 0.4],
        busyBeforePct: 3,
        busyDuringPct: 90,
      });
    }
  }
  return {
    info: {
      quick: false,
      runs: rounds,
      pending: 1000,
      startedAt: '2026-11-27T10:00:00.000Z',
      finishedAt: '2026-11-27T10:30:00.000Z',
      machine: { cpu: 'Test CPU', cores: 2, ramGiB: 8, node: 'v20', versions: { BullMQ: '6.7.0' }, commit: 'abc1234' },
      loadBefore: [0.5, 0.4, 0.3],
      loadAfter: [1, 1, 1],
      command: 'npm run bench -- --runs=3',
      mode: { enqueue: 50_000, burst: 100_000, burstSlackMs: 1000, leadMs: 1000 },
      notes: { 'BullMQ · hz 10': 'BullMQ on the same Redis' },
      failures: [],
      chartFile: '',
    },
    results,
    rounds: load,
  };
}

const options = {
  root: '',
  resultsFile: 'bench/results/x.json',
  latenessChart: undefined,
  ratioChart: 'bench/results/x-ratios.svg',
  renderCommand: 'npm run bench -- --render-only',
  detail: { link: 'bench/results/x-detail.md', root: '../../', back: '../../BENCHMARKS.md' },
};

describe('bench arithmetic', () => {
  it('takes nearest-rank percentiles', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 50)).toBe(50);
    expect(percentile(sorted, 99)).toBe(99);
    expect(summarize([5, 1, 3])).toEqual({ p50: 3, p99: 5, max: 5, n: 3 });
  });

  it('keeps a value in its round, so a round a subject missed is a hole, not a shift', () => {
    const r = new Results();
    r.add('burst', 'a', 'rate', 10, 1);
    r.add('burst', 'a', 'rate', 30, 3);
    r.add('burst', 'b', 'rate', 5, 1);
    r.add('burst', 'b', 'rate', 6, 2);
    r.add('burst', 'b', 'rate', 10, 3);
    expect(r.perRound('burst', 'a', 'rate')).toEqual([10, undefined, 30]);
    expect(r.values('burst', 'a', 'rate')).toEqual([10, 30]);
    expect(ratiosByRound(r.perRound('burst', 'a', 'rate'), r.perRound('burst', 'b', 'rate'))).toEqual([
      2,
      Number.NaN,
      3,
    ]);
    const again = Results.fromJSON(JSON.parse(JSON.stringify(r)) as Parameters<typeof Results.fromJSON>[0]);
    expect(again.perRound('burst', 'a', 'rate')).toEqual([10, undefined, 30]);
  });

  it('ignores values that are not finite', () => {
    const r = new Results();
    r.add('memory', 'x', 'bytes', undefined);
    r.add('memory', 'x', 'bytes', Number.NaN);
    expect(r.values('memory', 'x', 'bytes')).toEqual([]);
  });

  it('merges scenarios measured apart into a run: theirs replaced, the rest kept, the page saying so', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'delayq-bench-merge-')), 'run.json');
    writeFileSync(path, toJson(syntheticRun()));
    const fresh = syntheticRun(1);
    fresh.results = new Results();
    fresh.results.add('burst', 'delayq · Redis', 'rate', 99, 1);
    fresh.results.add('cli', 'node -e 0', 'ms', 40, 1);
    fresh.rounds = { cli: [fresh.rounds!['enqueue']![0]!] };
    fresh.info = {
      ...fresh.info,
      startedAt: '2026-11-28T05:00:00.000Z',
      command: 'npm run bench -- --only=burst,cli --merge',
    };
    fresh.info.failures = ['cli round 1: x'];
    const merged = mergeIntoRun(path, fresh);
    expect(merged.results.perRound('enqueue', 'delayq · Redis', 'rate')).toEqual([30, 40, 20]);
    expect(merged.results.perRound('burst', 'delayq · Redis', 'rate')).toEqual([99]);
    expect(merged.results.subjects('burst')).toEqual(['delayq · Redis']); // the old run's rows of it are gone
    expect(merged.results.perRound('cli', 'node -e 0', 'ms')).toEqual([40]);
    expect(Object.keys(merged.rounds!).sort()).toEqual(['burst', 'cli', 'enqueue']);
    expect(merged.info.startedAt).toBe('2026-11-27T10:00:00.000Z');
    expect(merged.info.failures).toEqual(['cli round 1: x']);
    expect(merged.info.provenance).toContain(
      'Measured apart and merged into this run: burst, cli, from 2026-11-28T05:00',
    );
    expect(renderReport(merged, options).markdown).toContain('--only=burst,cli --merge');
  });

  it('rotates the subjects each round: A B C, B C A, C A B', () => {
    expect([1, 2, 3, 4].map((round) => rotate(['A', 'B', 'C'], round).join(''))).toEqual(['ABC', 'BCA', 'CAB', 'ABC']);
    expect(rotate([], 2)).toEqual([]);
  });

  it('pads every job body to the same JSON size', () => {
    expect(JSON.stringify(bodyFor(Date.now())).length).toBe(BODY_BYTES);
    expect(JSON.stringify(bodyFor(0)).length).toBe(BODY_BYTES);
  });
});

describe('a figure', () => {
  it('shows each round, the median, the spread and the ratio to each peer by round', () => {
    const rows = figureRows(figure('enqueue'), syntheticRun().results);
    const md = figureTable(figure('enqueue'), rows);
    const [head] = md.split('\n');
    expect(head).toContain('| round 1 | round 2 | round 3 | median, jobs/s | max − min |');
    expect(head).toContain('÷ BullMQ · hz 10, by round → median');
    // 30, 40, 20 against BullMQ's 10s and beanstalkd's 20s; the spread (40 − 20) ÷ 30 is over 15 %.
    expect(md).toContain(
      '| delayq · Redis · in-process | 30 | 40 | 20 | 30 | 67 % ⚠ | 3.00, 4.00, 2.00 → 3.00× | 1.50, 2.00, 1.00 → 1.50× |',
    );
    expect(md).toContain('| delayq · Redis · SDK | 15 | 15 | 15 | 15 | 0 % | 1.50, 1.50, 1.50 → 1.50× |');
    // delayq's rows first, the peers last.
    expect(rows.map((r) => r.subject)).toEqual([
      'delayq · Redis',
      'delayq · Redis · SDK',
      'BullMQ · hz 10',
      'beanstalkd',
    ]);
  });

  it('gives no ratio for a row of about nothing (bytes of a job kept out of Redis)', () => {
    const r = new Results();
    r.add('memory', 'BullMQ · hz 10', 'bytes', 777, 1);
    r.add('memory', 'delayq · beyond the horizon', 'bytes', -0.4, 1);
    const md = figureTable(figure('memory'), figureRows(figure('memory'), r));
    expect(md).toContain('| delayq · beyond the horizon | -0 | -0 | – | – |');
  });

  it("keeps the run's options in each figure's command and sets --only", () => {
    expect(figureCommand('npm run bench -- --runs=5 --only=x --out=a.md', 'burst')).toBe(
      'npm run bench -- --only=burst --runs=5',
    );
    expect(figureCommand('npm run bench', 'enqueue,beyond')).toBe('npm run bench -- --only=enqueue,beyond');
    expect(figureCommand('npm run bench:quick', 'late1k')).toBe('npm run bench -- --quick --only=late1k');
  });
});

describe('the page', () => {
  it("states each figure's scenario, rounds, load, command and bound, and the run's machine and commit", () => {
    const { markdown } = renderReport(syntheticRun(), options);
    expect(markdown).toContain('- Commit: abc1234.');
    expect(markdown).toContain('- Machine: 2 × Test CPU, 8 GiB RAM, Node v20. Versions: BullMQ 6.7.0.');
    for (const f of [figure('enqueue'), figure('burst')]) {
      const section = markdown.split(`## ${f.title(syntheticRun().info.mode)}\n`)[1]!.split('\n## ')[0]!;
      expect(section).toContain(f.scenario(syntheticRun().info.mode));
      expect(section).toContain(
        'Rounds (subjects rotated each round). round 1: load 1.50 → 1.50, CPU busy 3 % before (the benchmark idle) and 90 % during, began with delayq · Redis; round 2: load 2.50',
      );
      expect(section).toContain('began with BullMQ · hz 10; round 3:');
      expect(section).toContain(`Command: \`npm run bench -- --only=${f.only} --runs=3\`.`);
      expect(section).toContain(`What bounds it: ${f.bounds}`);
      expect(section).toContain('| round 1 | round 2 | round 3 |');
    }
    expect(markdown).toContain(
      '| delayq · Redis · in-process | 3.00× (2.00–4.00) | 1.50× (1.00–2.00) | 3.00× (2.00–4.00) |',
    );
    expect(markdown).not.toContain('not a median of 3');
  });

  it('names the subject of each round where a scenario runs its rounds subject by subject', () => {
    const run = syntheticRun(2);
    for (const subject of ['delayq · Redis', 'beanstalkd'])
      for (const round of [1, 2]) {
        run.results.add('pending', subject, 'p99', round, round);
        (run.rounds!['pending'] ??= []).push({ ...run.rounds!['enqueue']![round - 1]!, round, order: [subject] });
      }
    const { markdown } = renderReport(run, options);
    expect(markdown).toContain(
      `Rounds (not alternated: ${figure('pending').notAlternated}). delayq · Redis round 1: load`,
    );
    expect(markdown).toContain(
      '; beanstalkd round 2: load 2.50 → 1.50, CPU busy 3 % before (the benchmark idle) and 90 % during.',
    );
  });

  it('says when a figure has fewer than 3 rounds', () => {
    const { markdown } = renderReport(syntheticRun(1), options);
    expect(markdown).toContain('**1 round: not a median of 3.**');
  });

  it('draws one ratio row per delayq subject, one dot per round', () => {
    const svg = ratioChart([
      { title: 'push: delayq ÷ <BullMQ>', rows: [{ label: 'a', byRound: [1, 2, 3], median: 2 }] },
    ]);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('÷ &lt;BullMQ&gt;');
    expect(svg.match(/<circle/g)).toHaveLength(3);
    expect(svg.match(/<rect x=/g)).toHaveLength(1);
  });

  it('draws one lateness curve per system with one colour per system across panels, escaping names', () => {
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

describe('the flow-control figures', () => {
  it('divide groups by no groups, and say beside them that BullMQ has no open-source groups', () => {
    const run = syntheticRun(2);
    run.info.mode = { ...run.info.mode, groupsJobs: 100_000, groupWaitBacklog: 100_000 };
    run.results.add('groups', GROUPS_ROW, 'rate', 900, 1);
    run.results.add('groups', NO_GROUPS_ROW, 'rate', 1000, 1);
    run.results.add('groups', GROUPS_ROW, 'rate', 800, 2);
    run.results.add('groups', NO_GROUPS_ROW, 'rate', 1000, 2);
    run.results.add('group-wait', WAIT_GROUPS_ROW, 'p99', 20, 1);
    const { markdown, detail } = renderReport(run, options);
    expect(detail).toContain(`| ${GROUPS_ROW} | 900 | 800 | 800 | 13 % | 0.90, 0.80 → 0.80× |`);
    for (const id of ['groups', 'group-wait']) {
      const section = detail!.split(`## ${figure(id).title(run.info.mode)}\n`)[1]!.split('\n## ')[0]!;
      expect(section).toContain('BullMQ has no open-source groups');
      expect(section).toContain('100,000');
      expect(markdown).not.toContain(`## ${figure(id).title(run.info.mode)}`);
    }
  });

  it('put the debounce storm on the first page, divided by BullMQ', () => {
    const run = syntheticRun(1);
    run.results.add('debounce', 'delayq · Redis · SDK', 'rate', 5000, 1);
    run.results.add('debounce', BULLMQ_DEBOUNCE, 'rate', 10_000, 1);
    const { markdown } = renderReport(run, options);
    expect(markdown).toContain('| delayq · Redis · SDK | 5,000 | 5,000 | – | 0.50× |');
  });
});

describe('the committed BENCHMARKS.md', () => {
  const page = readFileSync(DEFAULT_PAGE, 'utf8');
  const rendered = reportFor(readRunRecord(DEFAULT_RESULTS), DEFAULT_RESULTS, DEFAULT_PAGE);

  it('is what the renderer makes of bench/results/benchmarks.json (generated, not edited by hand)', () => {
    expect(page).toBe(rendered.markdown);
    expect(readFileSync(rendered.ratioPath, 'utf8')).toBe(rendered.ratioSvg);
    expect(readFileSync(rendered.detailPath, 'utf8')).toBe(rendered.detail);
  });

  it('has at most 300 lines, and every figure of both pages its scenario, command, bound and rounds', () => {
    expect(page.split('\n').length).toBeLessThanOrEqual(300);
    const detail = readFileSync(rendered.detailPath, 'utf8');
    expect(page).toContain(`(${relative(REPO_ROOT, rendered.detailPath)})`);
    const sections = [page, detail].flatMap((p) => p.split('\n## ').slice(1));
    const figures = sections.filter((s) => s.includes('\n| subject | round 1 |'));
    expect(figures.length).toBeGreaterThanOrEqual(10);
    for (const section of figures) {
      expect(section).toMatch(/ is better\./);
      expect(section).toMatch(/\nCommand: `npm run bench -- --only=[\w,-]+`\./);
      expect(section).toContain('\nWhat bounds it: ');
    }
    for (const [file, text] of [
      [DEFAULT_PAGE, page],
      [rendered.detailPath, detail],
    ] as const)
      for (const [, link] of text.matchAll(/\]\(([^)#]+)(#[^)]*)?\)/g))
        if (!/^https?:/.test(link!)) expect(existsSync(join(dirname(file), link!)), `${file}: ${link}`).toBe(true);
  });

  it('leaves no dated diary in bench/: its only pages are its README and generated reports', () => {
    const pages = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? pages(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
      );
    for (const file of pages(join(REPO_ROOT, 'bench'))) {
      if (file.endsWith('bench/README.md')) continue;
      expect(readFileSync(file, 'utf8'), file).toMatch(
        /^# delayq benchmarks[^\n]*\n[\s\S]*Generated from one run's results/,
      );
    }
  });

  it("README's performance paragraph cites BENCHMARKS.md and docs/performance.md, and no figure the page lacks", () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const section = readme.split('\n## Performance\n')[1]!.split('\n## ')[0]!;
    expect(section).toContain('(BENCHMARKS.md)');
    expect(section).toContain('(docs/performance.md)');
    const figures = [...section.matchAll(/\d+(?:[.,]\d+)*×/g)].map((m) => m[0]);
    expect(figures.length).toBeGreaterThan(0);
    for (const f of figures) expect(page, f).toContain(f);
  });
});
