// Renders BENCHMARKS.md from one run's record: the run (when, commit, machine, versions, load, command), a
// headline of ratios to the peers, the charts, then every figure of bench/figures.ts with its scenario, its
// rounds (values, the host's load, the order of subjects), medians and ratios by round, and what bounds it.
import type { RoundLoad } from './host-load.js';
import { clientTable } from './client-table.js';
import { FIGURES, BEANSTALKD, BULLMQ, type Figure } from './figures.js';
import { figureRows, figureTable, roundsOf, REPRODUCIBLE_PCT, type Row } from './figure-table.js';
import { fmt } from './lib.js';
import type { MachineInfo } from './machine.js';
import { ratioChart, type RatioPanel } from './ratio-chart.js';
import type { RunInfo, RunRecord } from './run-record.js';

export interface ReportOptions {
  /** The repository's root, relative to the page ('' for BENCHMARKS.md), for the page's links into docs/. */
  root: string;
  /** The results file, as the page names it. */
  resultsFile: string;
  /** The lateness chart written by the run, relative to the page; omitted when it is not there. */
  latenessChart: string | undefined;
  /** The ratio chart this render writes, relative to the page. */
  ratioChart: string;
  /** The command that renders this page again. */
  renderCommand: string;
  /** The scale page (`npm run bench:scale`), relative to this page, when there is one. */
  scalePage?: string | undefined;
  /** The run's second page (figures of delayq on its own): its link from this page, the repository's root and this page from it. */
  detail: { link: string; root: string; back: string };
}

const load = (l: readonly number[]) => (l.length ? l.map((x) => x.toFixed(2)).join(' / ') : 'not recorded');
const pct = (v: number | undefined) => (v === undefined ? '?' : `${fmt(v)} %`);
const utc = (iso: string) => iso.replace('T', ' ').slice(0, 16);

function machineLines(info: RunInfo): string[] {
  if (typeof info.machine === 'string')
    return [
      `- Machine: ${info.machine}. Versions: not recorded in this results file (the subjects' notes below name the peers' versions).`,
    ];
  const m: MachineInfo = info.machine;
  const versions = Object.entries(m.versions)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return [`- Machine: ${m.cores} × ${m.cpu}, ${m.ramGiB} GiB RAM, Node ${m.node}. Versions: ${versions}.`];
}

function commitLine(info: RunInfo): string {
  const commit = typeof info.machine === 'string' ? 'not recorded in this results file' : info.machine.commit;
  return `- Commit: ${commit}.${info.provenance ? ` ${info.provenance}` : ''}`;
}

/** The run's command with `--only` set to the figure's scenarios (its other options kept). */
export function figureCommand(command: string, only: string): string {
  const [base, rest = ''] = command.split(' -- ');
  const kept = rest.split(' ').filter((a) => a && !/^--(only|out|render-only|from)(=|$)/.test(a) && a !== '--quick');
  const quick = command.includes('bench:quick') || rest.split(' ').includes('--quick');
  const head = base!.replace('bench:quick', 'bench');
  return `${head} -- ${[...(quick ? ['--quick'] : []), `--only=${only}`, ...kept].join(' ')}`;
}

const UNRECORDED_ROUNDS =
  "- Rounds: this run's harness recorded neither the order nor the host's load of each round: every round ran the\n" +
  "  subjects in the tables' order (not alternated), and only the run's load average (above) was kept.";

/** Each round's load and CPU; a scenario that runs its rounds subject by subject names the subject too. */
function roundsLine(rounds: readonly RoundLoad[] | undefined, figure: Figure): string {
  if (!rounds?.length) return '';
  const bySubject = new Set(rounds.map((r) => r.round)).size < rounds.length;
  const each = rounds
    .map((r) => {
      const name = bySubject ? `${r.order.join(', ')} round ${r.round}` : `round ${r.round}`;
      const first = !bySubject && r.order.length > 1 ? `, began with ${r.order[0]}` : '';
      return (
        `${name}: load ${r.loadBefore[0]?.toFixed(2) ?? '?'} → ${r.loadAfter[0]?.toFixed(2) ?? '?'}, CPU busy ` +
        `${pct(r.busyBeforePct)} before (the benchmark idle) and ${pct(r.busyDuringPct)} during${first}`
      );
    })
    .join('; ');
  const order = figure.notAlternated ? `not alternated: ${figure.notAlternated}` : 'subjects rotated each round';
  return `Rounds (${order}). ${each}.\n`;
}

function figureSection(figure: Figure, rows: readonly Row[], record: RunRecord, root: string): string {
  const mode = record.info.mode;
  const rounds = roundsOf(rows);
  const few = rounds < 3 ? ` **${rounds} round${rounds === 1 ? '' : 's'}: not a median of 3.**` : '';
  return `## ${figure.title(mode)}

${figure.scenario(mode)} ${figure.better === 'higher' ? 'Higher' : 'Lower'} is better.${few}
${roundsLine(record.rounds?.[figure.rounds ?? figure.id], figure)}Command: \`${figureCommand(record.info.command, figure.only)}\`.
What bounds it: ${figure.bounds} ([${figure.boundsDoc}](${root}${figure.boundsDoc})).

${figureTable(figure, rows)}
`;
}

/** "1.21× (1.10–1.22)": the median, and the lowest and highest round. */
function spanCell(values: readonly number[], median: number, digits: number, unit: string): string {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return '–';
  const m = `${fmt(median, digits)}${unit}`;
  return finite.length > 1 ? `${m} (${fmt(Math.min(...finite), digits)}–${fmt(Math.max(...finite), digits)})` : m;
}

function headline(byId: Map<string, Row[]>): string {
  const row = (id: string, label: string) => byId.get(id)?.find((x) => x.label === label);
  const ratio = (id: string, peer: string) => (label: string) => {
    const r = row(id, label)?.ratios.find((x) => x.peer === peer);
    return r ? spanCell(r.byRound, r.median, 2, '×') : '–';
  };
  const p99 = (label: string) => {
    const r = row('late1k', label);
    return r
      ? spanCell(
          r.values.filter((v): v is number => v !== undefined),
          r.median,
          0,
          ' ms',
        )
      : '–';
  };
  const peerP99 = (peer: string) => fmt(row('late1k', peer)?.median ?? Number.NaN);
  const cols: [string, (label: string) => string][] = [
    ['push ÷ BullMQ', ratio('enqueue', BULLMQ)],
    ['push ÷ beanstalkd', ratio('enqueue', BEANSTALKD)],
    ['burst drain ÷ BullMQ', ratio('burst', BULLMQ)],
    ['burst drain ÷ beanstalkd', ratio('burst', BEANSTALKD)],
    [`1k due/s p99 (BullMQ ${peerP99(BULLMQ)} ms, beanstalkd ${peerP99(BEANSTALKD)} ms)`, p99],
  ];
  const labels = [...new Set(['enqueue', 'burst', 'late1k'].flatMap((id) => (byId.get(id) ?? []).map((r) => r.label)))];
  const delayq = labels.filter((l) => l.startsWith('delayq'));
  if (delayq.length === 0) return '';
  const lines = [
    `| delayq, path | ${cols.map((c) => c[0]).join(' | ')} |`,
    `|${[0, ...cols].map(() => ' --- ').join('|')}|`,
    ...delayq.map((l) => `| ${l} | ${cols.map(([, cell]) => cell(l)).join(' | ')} |`),
  ];
  return `## Headline: delayq ÷ the peers, median of the rounds (lowest–highest round)

${lines.join('\n')}

In-process: an application calling \`DelayqService\`. SDK, plain HTTP: over HTTP to the server in its own process,
started fresh for each round and warmed first through the subject's own client: 100,000 jobs for the SDK and 20,000
requests for a plain client, and their drain, in figures measured since 2026-11-29 20:00 UTC (the header's merged
parts say which); 3,000 pushes and a batch of 1,000 with their drain in those measured before.
beanstalkd protocol: the peer's own jackd clients to delayq's server in its own process.
`;
}

function clientSection(record: RunRecord): string {
  const table = clientTable(record.results, record.info.mode);
  if (!table) return '';
  return `## Over the API, by client, in the independent harness's shape

${table}

Each value is the median of its rounds in the figure of its scenario below; in brackets the ratio to BullMQ and to
beanstalkd, lowest–highest round.
`;
}

function ratioPanels(byId: Map<string, Row[]>): RatioPanel[] {
  const panels: RatioPanel[] = [];
  for (const [id, name] of [
    ['enqueue', 'push'],
    ['burst', 'burst drain'],
  ] as const)
    for (const peer of [BULLMQ, BEANSTALKD]) {
      const rows = (byId.get(id) ?? [])
        .filter((r) => r.label.startsWith('delayq'))
        .map((r) => ({ label: r.label, ...r.ratios.find((x) => x.peer === peer)! }))
        .filter((r) => r.byRound?.some(Number.isFinite));
      if (rows.length) panels.push({ title: `${name}: delayq ÷ ${peer}`, rows });
    }
  return panels;
}

export interface Report {
  markdown: string;
  /** The second page, when the run measured any of its figures. */
  detail: string | undefined;
  ratioSvg: string | undefined;
}

export function renderReport(record: RunRecord, options: ReportOptions): Report {
  const { info } = record;
  const byId = new Map(FIGURES.map((f) => [f.id, figureRows(f, record.results)] as const));
  const panels = ratioPanels(byId);
  const shown = FIGURES.filter((f) => byId.get(f.id)!.length > 0 && f.page !== 'detail');
  const shownDetail = FIGURES.filter((f) => byId.get(f.id)!.length > 0 && f.page === 'detail');
  const missing = FIGURES.filter((f) => byId.get(f.id)!.length === 0).map((f) => f.id);
  const minutes = ((Date.parse(info.finishedAt) - Date.parse(info.startedAt)) / 60_000).toFixed(1);
  const failed = info.failures.length
    ? `\n> **${info.failures.length} measurement(s) failed** (their cells are empty):\n${info.failures.map((f) => `> - ${f}`).join('\n')}\n`
    : '';
  const quick = info.quick
    ? '\n> **Quick mode** (the CI smoke run): small counts, one round; noisy, and not comparable to the full run.\n'
    : '';
  const perf = `${options.root}docs/performance.md`;
  const charts = [
    options.latenessChart ? `![lateness: share of jobs delivered at most that late](${options.latenessChart})` : '',
    panels.length ? `![delayq ÷ BullMQ and ÷ beanstalkd, by round](${options.ratioChart})` : '',
  ].filter(Boolean);
  const markdown = `# delayq benchmarks: side by side with BullMQ and beanstalkd
${quick}${failed}
Generated from one run's results (\`${options.resultsFile}\`) by \`npm run bench\`; do not edit by hand. To render it
again without measuring: \`${options.renderCommand}\`. Each figure says what bounds it;
[docs/performance.md](${perf}) explains it, with the experiments that failed.

## The run

- When: ${utc(info.startedAt)} to ${utc(info.finishedAt)} UTC (${minutes} min). Command: \`${info.command}\`.
${commitLine(info)}
${machineLines(info).join('\n')}
- Load average (1 / 5 / 15 min): ${load(info.loadBefore)} before the run, ${load(info.loadAfter)} after${record.rounds ? "; each figure gives its rounds' load and order." : `.\n${UNRECORDED_ROUNDS}`}
- Method: every subject in the same run on this machine, ${info.runs} round(s) per scenario; a figure is the median of
  its rounds. A ratio is this ÷ the peer within one round, then the median of those. "max − min" is the rounds'
  spread over their median: ⚠ marks more than ${REPRODUCIBLE_PCT} %, which another run here may not reproduce within ${REPRODUCIBLE_PCT} %.
- Ratios move with the host's state (a slow phase costs BullMQ more than delayq): compare within one run ([docs/performance.md, "Quick and slow hosts"](${perf}#quick-and-slow-hosts)).

${headline(byId)}
${clientSection(record)}${options.scalePage ? `\nAt scale (0 → 10M jobs per shape): [${options.scalePage}](${options.scalePage}), \`npm run bench:scale\`.\n` : ''}
${charts.join('\n\n')}

${shown.map((f) => figureSection(f, byId.get(f.id)!, record, options.root)).join('\n')}${
    shownDetail.length
      ? `\nThe same run, delayq on its own: [${options.detail.link}](${options.detail.link}) (${shownDetail
          .map((f) => f.title(info.mode))
          .join('; ')}).\n`
      : ''
  }
## How each subject is driven

${Object.entries(info.notes)
  .map(([subject, note]) => `- **${subject}**: ${note}`)
  .join('\n')}
- delayq in-process: \`DelayqService\` in the benchmark process, as \`delayq serve\` runs it; its consumer shares
  100 slots between two reserve lanes (as the SDK's Worker), the finishes of one turn in one \`finishMany\`.
- BullMQ: \`Queue.add(name, data, { delay })\` and \`addBulk\`; one \`Worker\`, \`concurrency: 100\`,
  \`removeOnComplete: { count: 0 }\`, \`removeOnFail: { count: 1000 }\`; \`hz\` set by \`CONFIG SET\`.
- Redis-based systems share one redis-server started by the benchmark (flushed between subjects); beanstalkd is
  started fresh for each measurement. Bodies are 100-byte JSON for every system.
${missing.length ? `\nNot in this run: ${missing.join(', ')}.\n` : ''}`;
  const detail = shownDetail.length
    ? `# delayq benchmarks: delayq on its own, the same run as BENCHMARKS.md
${quick}
Generated from one run's results (\`${options.resultsFile}\`) by \`npm run bench\` with the page it extends; do not edit
by hand. The run (when, machine, versions, load, method) and how each subject is driven: [its first page](${options.detail.back}).

${shownDetail.map((f) => figureSection(f, byId.get(f.id)!, record, options.detail.root)).join('\n')}`
    : undefined;
  return { markdown, detail, ratioSvg: panels.length ? ratioChart(panels) : undefined };
}
