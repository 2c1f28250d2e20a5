// The "over the API" part of BENCHMARKS.md: delayq's server in its own process, driven over HTTP by the SDK
// and by a plain-HTTP consumer, next to BullMQ's worker and beanstalkd measured in the same run.
import { fmt, median } from './lib.js';
import { cell, type Results } from './results-table.js';

const BULLMQ = 'BullMQ · hz 10';
const BEANSTALKD = 'beanstalkd';

/** this ÷ peer per run (runs paired by index). */
function ratios(
  results: Results,
  apiScenario: string,
  system: string,
  peerScenario: string,
  peer: string,
  metric: string,
): number[] {
  const mine = results.values(apiScenario, system, metric);
  const theirs = results.values(peerScenario, peer, metric);
  const out: number[] = [];
  for (let i = 0; i < Math.min(mine.length, theirs.length); i++) if (theirs[i]! > 0) out.push(mine[i]! / theirs[i]!);
  return out;
}

const mid = (values: number[]): number => (values.length ? median(values) : Number.NaN);

function rateTable(results: Results, scenario: string): string {
  const api = results.systems(`api-${scenario}`);
  if (api.length === 0) return '_not run_\n';
  const lines = [
    '| system | jobs/s | this ÷ BullMQ (same run) | this ÷ beanstalkd (same run) |',
    '| --- | --- | --- | --- |',
  ];
  for (const system of api) {
    lines.push(
      `| ${system} | ${cell(results.values(`api-${scenario}`, system, 'rate'))} | ${cell(ratios(results, `api-${scenario}`, system, scenario, BULLMQ, 'rate'), 2, '×')} | ${cell(ratios(results, `api-${scenario}`, system, scenario, BEANSTALKD, 'rate'), 2, '×')} |`,
    );
  }
  for (const peer of [BULLMQ, BEANSTALKD]) {
    if (results.values(scenario, peer, 'rate').length)
      lines.push(`| ${peer} (its own client, for comparison) | ${cell(results.values(scenario, peer, 'rate'))} | | |`);
  }
  return `${lines.join('\n')}\n`;
}

function latenessTable(results: Results): string {
  const api = results.systems('api-late1k');
  if (api.length === 0) return '_not run_\n';
  const lines = ['| system | p50 | p99 | max | not delivered |', '| --- | --- | --- | --- | --- |'];
  const row = (scenario: string, system: string, label = system) =>
    `| ${label} | ${cell(results.values(scenario, system, 'p50'), 0, 'ms')} | ${cell(results.values(scenario, system, 'p99'), 0, 'ms')} | ${cell(results.values(scenario, system, 'max'), 0, 'ms')} | ${cell(results.values(scenario, system, 'missing'))} |`;
  for (const system of api) lines.push(row('api-late1k', system));
  for (const peer of ['BullMQ · hz 10', 'BullMQ · hz 100', BEANSTALKD]) {
    if (results.values('late1k', peer, 'p99').length) lines.push(row('late1k', peer, `${peer} (for comparison)`));
  }
  return `${lines.join('\n')}\n`;
}

function costTable(results: Results): string {
  const lines = [
    '| system | enqueue: client µs/job | enqueue: server µs/job | burst: client µs/job | burst: server µs/job |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const system of results.systems('api-enqueue')) {
    const c = (scenario: string, metric: string) => cell(results.values(scenario, system, metric), 1);
    lines.push(
      `| ${system} | ${c('api-enqueue', 'clientUs')} | ${c('api-enqueue', 'serverUs')} | ${c('api-burst', 'clientUs')} | ${c('api-burst', 'serverUs')} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function goalRows(results: Results): string {
  /** The best delayq row's ratio to the peer, and which row it was (the SDK or plain HTTP). */
  const best = (scenario: string, store: string, peer: string): [number, string] => {
    let top: [number, string] = [Number.NaN, ''];
    for (const s of results.systems(`api-${scenario}`).filter((s) => s.startsWith(`delayq · ${store} ·`))) {
      const v = mid(ratios(results, `api-${scenario}`, s, scenario, peer, 'rate'));
      if (Number.isFinite(v) && !(v <= top[0])) top = [v, s.slice(`delayq · ${store} · `.length)];
    }
    return top;
  };
  const verdict = (v: number, goal: number, lowerIsBetter = false) =>
    !Number.isFinite(v) ? 'not measured' : (lowerIsBetter ? v <= goal : v >= goal) ? 'met' : '**not met**';
  const rows: [string, [number, string], number, boolean, string][] = [
    ['push (single, 100 in flight), Redis: ≥ 1× BullMQ', best('enqueue', 'Redis', BULLMQ), 1, false, '×'],
    ['push, Redis: ≥ 0.5× beanstalkd', best('enqueue', 'Redis', BEANSTALKD), 0.5, false, '×'],
    ['burst drain, Redis: ≥ 1× BullMQ', best('burst', 'Redis', BULLMQ), 1, false, '×'],
    ['burst drain, Redis: ≥ 0.5× beanstalkd', best('burst', 'Redis', BEANSTALKD), 0.5, false, '×'],
    ['1k due/s p99 lateness, Redis: ≤ 10 ms', bestP99(results), 10, true, ' ms'],
    ['push, embedded: ≥ 0.5× BullMQ', best('enqueue', 'embedded', BULLMQ), 0.5, false, '×'],
    ['burst drain, embedded: ≥ 0.5× BullMQ', best('burst', 'embedded', BULLMQ), 0.5, false, '×'],
  ];
  return rows
    .map(
      ([goal, [v, by], target, lower, unit]) =>
        `| ${goal} | ${fmt(v, unit === '×' ? 2 : 0)}${unit}${by ? ` (${by})` : ''} | ${verdict(v, target, lower)} |`,
    )
    .join('\n');
}

function bestP99(results: Results): [number, string] {
  let top: [number, string] = [Number.NaN, ''];
  for (const s of results.systems('api-late1k').filter((s) => s.startsWith('delayq · Redis ·'))) {
    const v = results.median('api-late1k', s, 'p99');
    if (Number.isFinite(v) && !(v >= top[0])) top = [v, s.slice('delayq · Redis · '.length)];
  }
  return top;
}

export function apiSection(results: Results): string {
  return `## Over the API: what a service's users get (server in its own process, HTTP on loopback)

Every figure above this section is **in-process**: the benchmark calls \`DelayqService\` directly, as an
application embedding delayq does. The figures in this section are **over the API**: \`delayq serve\`'s
server in a child process, on the embedded store, on Redis, or on Redis + the PostgreSQL journal, driven over
HTTP two ways: the **SDK** (\`DelayqClient.push\` per job, which sends the pushes made in one event-loop turn
as one batch request, each caller getting its own job: docs/sdk.md; the \`Worker\`, which carries the finishes
of a batch on its next reserve) and **plain HTTP** as a Python or PHP client written from the docs would be (one
\`POST /v1/jobs\` per push over a kept-alive connection; \`reserve\` with \`count=100\` carrying the previous
batch's finishes as \`acks\`: one round trip per batch). BullMQ and beanstalkd are the same measurements as above (a
library and a TCP protocol, each with its own client), taken in the same run; ratios pair the runs.

| goal (issue 19), best delayq consumer per store | measured | |
| --- | --- | --- |
${goalRows(results)}

**Push**, one job per \`push\` call, 100 calls in flight: the SDK rows coalesce the calls of one event-loop turn
into one batch request (\`coalescePushes\`, on by default); the plain-HTTP rows send one request per job:

${rateTable(results, 'enqueue')}
**Burst drain** (pushed beforehand with \`POST /v1/jobs/batch\`):

${rateTable(results, 'burst')}
**1k due/s lateness**:

${latenessTable(results)}
CPU per job over the API: the benchmark process (the SDK or the plain client) and the delayq server process
(Redis's own CPU not included):

${costTable(results)}
`;
}
