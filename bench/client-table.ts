// The independent harness's table in its own shape (rows: BullMQ, beanstalkd and each way to reach delayq;
// columns: push at 100 in flight, burst drain, 1k due/s p99 of a preloaded backlog), filled from one run's
// figures: each delayq cell with its ratio to BullMQ and to beanstalkd, lowest–highest round. Every value is
// one of the figures below it on the page, which state their scenarios.
import { BEANSTALKD, BULLMQ, type Mode } from './figure.js';
import { fmt } from './lib.js';
import { ratiosByRound, type Results } from './results.js';

interface Source {
  scenario: string;
  subject: string;
  /** Shown before the value where a cell holds several (e.g. "fetch"). */
  label?: string;
}

type Column = { title: (mode: Mode) => string; metric: string; peerScenario: string; unit: 'rate' | 'ms' };

const COLUMNS: readonly Column[] = [
  { title: () => 'push, 100 in flight (jobs/s)', metric: 'rate', peerScenario: 'enqueue', unit: 'rate' },
  { title: () => 'burst drain (jobs/s)', metric: 'rate', peerScenario: 'burst', unit: 'rate' },
  {
    title: (m) =>
      `1k due/s p99 (${m['lateApiJobs'] === undefined ? 'a backlog' : fmt(m['lateApiJobs'])} preloaded, spread due times)`,
    metric: 'p99',
    peerScenario: 'late-api',
    unit: 'ms',
  },
];

const redis = (client: string) => `delayq · Redis · ${client}`;
const ROWS: readonly [string, (readonly Source[] | undefined)[]][] = [
  [
    'BullMQ (its own client in the app)',
    [
      [{ scenario: 'enqueue', subject: BULLMQ }],
      [{ scenario: 'burst', subject: BULLMQ }],
      [{ scenario: 'late-api', subject: BULLMQ }],
    ],
  ],
  [
    'beanstalkd (jackd)',
    [
      [{ scenario: 'enqueue', subject: BEANSTALKD }],
      [{ scenario: 'burst', subject: BEANSTALKD }],
      [{ scenario: 'late-api', subject: BEANSTALKD }],
    ],
  ],
  [
    'delayq SDK / Worker (Redis)',
    [
      [{ scenario: 'api-enqueue', subject: redis('SDK') }],
      [{ scenario: 'api-burst', subject: redis('SDK') }],
      [{ scenario: 'late-api', subject: redis('SDK') }],
    ],
  ],
  [
    'delayq plain HTTP, acks on the next reserve (Redis)',
    [
      [
        { scenario: 'api-enqueue', subject: redis('plain fetch'), label: 'fetch' },
        { scenario: 'api-enqueue', subject: redis('plain HTTP'), label: 'node:http keep-alive' },
        { scenario: 'api-enqueue', subject: redis('Python http.client'), label: 'Python http.client' },
      ],
      [{ scenario: 'api-burst', subject: redis('plain HTTP') }],
      [{ scenario: 'late-api', subject: redis('plain HTTP') }],
    ],
  ],
  [
    'delayq beanstalkd protocol (jackd, Redis)',
    [
      [{ scenario: 'enqueue', subject: redis('beanstalkd protocol') }],
      [{ scenario: 'burst', subject: redis('beanstalkd protocol') }],
      [{ scenario: 'late-api', subject: redis('beanstalkd protocol') }],
    ],
  ],
  [
    'delayq embedded (SDK; plain)',
    [
      [
        { scenario: 'api-enqueue', subject: 'delayq · embedded · SDK', label: 'SDK' },
        { scenario: 'api-enqueue', subject: 'delayq · embedded · plain HTTP', label: 'plain' },
      ],
      [
        { scenario: 'api-burst', subject: 'delayq · embedded · SDK', label: 'SDK' },
        { scenario: 'api-burst', subject: 'delayq · embedded · plain HTTP', label: 'plain' },
      ],
      [
        { scenario: 'late-api', subject: 'delayq · embedded · SDK', label: 'SDK' },
        { scenario: 'late-api', subject: 'delayq · embedded · plain HTTP', label: 'plain' },
      ],
    ],
  ],
  [
    'delayq Redis + PostgreSQL journal (SDK)',
    [
      [{ scenario: 'api-enqueue', subject: 'delayq · Redis + PostgreSQL · SDK' }],
      [{ scenario: 'api-burst', subject: 'delayq · Redis + PostgreSQL · SDK' }],
      undefined,
    ],
  ],
];

const value = (v: number, unit: Column['unit']) =>
  unit === 'ms' ? `${fmt(v)} ms` : v >= 10_000 ? `${fmt(v / 1000, 1)}k` : fmt(v);

/** "0.79–0.93×" over the rounds both have, "0.85×" for one; undefined where they share none. */
export function ratioSpan(
  mine: readonly (number | undefined)[],
  theirs: readonly (number | undefined)[],
): string | undefined {
  const r = ratiosByRound([...mine], [...theirs]).filter(Number.isFinite);
  if (r.length === 0) return undefined;
  const [lo, hi] = [Math.min(...r), Math.max(...r)];
  return lo === hi ? `${fmt(lo, 2)}×` : `${fmt(lo, 2)}–${fmt(hi, 2)}×`;
}

function cell(results: Results, column: Column, sources: readonly Source[] | undefined): string {
  const parts: string[] = [];
  for (const s of sources ?? []) {
    const values = results.perRound(s.scenario, s.subject, column.metric);
    const present = values.filter((v): v is number => v !== undefined);
    if (present.length === 0) continue;
    const sorted = [...present].sort((a, b) => a - b);
    const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
    const ratios =
      s.subject === BULLMQ || s.subject === BEANSTALKD
        ? []
        : [BULLMQ, BEANSTALKD].flatMap((peer) => {
            const span = ratioSpan(values, results.perRound(column.peerScenario, peer, column.metric));
            return span ? [`${span} ${peer === BULLMQ ? 'BullMQ' : 'beanstalkd'}`] : [];
          });
    parts.push(
      `${s.label ? `${s.label} ` : ''}${value(median, column.unit)}${ratios.length ? ` (${ratios.join(', ')})` : ''}`,
    );
  }
  return parts.length ? parts.join('; ') : '–';
}

/** The table, or '' when the run measured none of its cells. */
export function clientTable(results: Results, mode: Mode): string {
  const lines = ROWS.map(
    ([path, sources]) => `| ${path} | ${COLUMNS.map((c, i) => cell(results, c, sources[i])).join(' | ')} |`,
  );
  if (lines.every((l) => /^\| [^|]+ \|( – \|)+$/.test(l))) return '';
  return [
    `| path | ${COLUMNS.map((c) => c.title(mode)).join(' | ')} |`,
    `|${[0, ...COLUMNS].map(() => ' --- ').join('|')}|`,
    ...lines,
  ].join('\n');
}
