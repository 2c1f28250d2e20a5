// A results record shaped like a full `npm run bench` run (every figure, every subject, 3 rounds, each round's
// load), with made-up values: what the page must fit into 300 lines with.
import { FIGURES } from '../../bench/figures.js';
import type { RoundLoad } from '../../bench/host-load.js';
import { Results } from '../../bench/results.js';
import type { RunRecord } from '../../bench/run-record.js';
import { NODE_BARE } from '../../bench/cli-start.js';
import { FLOOR_SINGLE, SDK_PUSHES } from '../../bench/http-floor.js';
import { BULLMQ_DEBOUNCE } from '../../bench/debounce-storm.js';
import {
  GROUPS_ROW,
  GROUPS_ROW_REDIS,
  NO_GROUPS_ROW,
  NO_GROUPS_ROW_REDIS,
  WAIT_GROUPS_ROW,
  WAIT_GROUPS_ROW_REDIS,
  WAIT_READY_ORDER_ROW,
  WAIT_READY_ORDER_ROW_REDIS,
} from '../../bench/flow-control.js';

const IN_PROCESS = ['delayq · embedded', 'delayq · Redis', 'delayq · Redis + PostgreSQL', 'delayq · Redis + MariaDB'];
const PEERS = ['BullMQ · hz 10', 'beanstalkd'];
const BS = 'delayq · Redis · beanstalkd protocol';
const API = ['embedded', 'Redis', 'Redis + PostgreSQL'].flatMap((s) => [
  `delayq · ${s} · SDK`,
  `delayq · ${s} · plain HTTP`,
]);
const PLAIN = ['delayq · Redis · plain fetch', 'delayq · Redis · Python http.client'];

/** The subjects a full run records in each results scenario. */
export const FULL_RUN_SUBJECTS: Record<string, readonly string[]> = {
  enqueue: [...IN_PROCESS, ...PEERS, BS],
  'api-enqueue': [...API, ...PLAIN],
  bulk: [...IN_PROCESS, 'BullMQ · hz 10'],
  memory: [...IN_PROCESS, ...PEERS, BS, 'delayq · Redis + PostgreSQL, due in 2 h (beyond the 1 h horizon)'],
  late1k: [...IN_PROCESS, ...PEERS, 'BullMQ · hz 100'],
  'api-late1k': API,
  'late-api': [
    'delayq · Redis · SDK',
    'delayq · Redis · plain HTTP',
    'delayq · embedded · SDK',
    'delayq · embedded · plain HTTP',
    BS,
    'delayq · embedded · beanstalkd protocol',
    ...PEERS,
  ],
  late5k: ['delayq · embedded', 'delayq · Redis', 'delayq · Redis + PostgreSQL', ...PEERS, 'BullMQ · hz 100'],
  burst: ['delayq · embedded', 'delayq · Redis', 'delayq · Redis + PostgreSQL', ...PEERS, BS],
  'api-burst': API,
  'bs-drain': ['beanstalkd', 'durable floor (Node + Redis)', BS],
  'bs-burst': ['beanstalkd', BS],
  pending: ['delayq · Redis', 'delayq · embedded', 'BullMQ · hz 100', 'beanstalkd'],
  drain: ['HTTP (SDK Worker)', 'gRPC reserve stream', 'beanstalkd protocol (jackd)'],
  http: ['a', 'b', 'c', 'd'],
  'http-floor': [
    'bare Fastify route (prepared answer)',
    'delayq · Redis: POST /v1/jobs',
    'delayq · embedded: POST /v1/jobs',
  ],
  'push-floor': [
    FLOOR_SINGLE,
    'delayq · Redis · node:http, one request per push',
    'delayq · embedded · node:http, one request per push',
    SDK_PUSHES,
  ],
  restore: ['delayq · Redis + PostgreSQL', 'delayq · Redis + MariaDB'],
  'bulk-cancel': ['delayq · embedded', 'delayq · Redis', 'delayq · Redis + PostgreSQL'],
  schedules: ['delayq schedules (Redis)', 'BullMQ 6.7 upsertJobScheduler'],
  due: Array.from({ length: 7 }, (_, i) => `view ${i}`),
  debounce: ['delayq · embedded · SDK', 'delayq · Redis · SDK', BULLMQ_DEBOUNCE],
  groups: [GROUPS_ROW, NO_GROUPS_ROW],
  'group-wait': [WAIT_GROUPS_ROW, WAIT_READY_ORDER_ROW],
  'groups-redis': [GROUPS_ROW_REDIS, NO_GROUPS_ROW_REDIS],
  'group-wait-redis': [WAIT_GROUPS_ROW_REDIS, WAIT_READY_ORDER_ROW_REDIS],
  cli: [NODE_BARE, 'delayq --help', 'delayq stats', 'delayq get (missing id)'],
};

/** The subjects a full run drives itself (bench/run.ts's keys), each with a note on the page. */
const DRIVEN = [
  ...IN_PROCESS,
  ...PEERS,
  'BullMQ · hz 100',
  BS,
  'delayq · embedded · beanstalkd protocol',
  'durable floor (Node + Redis)',
  ...API,
  ...PLAIN,
];

export function fullRun(): RunRecord {
  const results = new Results();
  const rounds: Record<string, RoundLoad[]> = {};
  for (const [scenario, subjects] of Object.entries(FULL_RUN_SUBJECTS)) {
    const metrics = new Set(
      FIGURES.filter((f) => f.scenarios.includes(scenario)).flatMap((f) => [
        f.metric,
        ...(f.also ?? []).map((c) => c.metric),
      ]),
    );
    subjects.forEach((subject, k) => {
      for (let round = 1; round <= 3; round++)
        for (const metric of metrics) results.add(scenario, subject, metric, 1000 + 10 * k + round, round);
    });
  }
  for (const f of FIGURES)
    rounds[f.rounds ?? f.id] ??= [1, 2, 3].map((round) => ({
      round,
      order: ['a', 'b', 'c'],
      startedAt: '2026-11-27T10:00:00.000Z',
      loadBefore: [0.5, 0.4, 0.3],
      loadAfter: [0.6, 0.4, 0.3],
      busyBeforePct: 3,
      busyDuringPct: 90,
    }));
  const notes = Object.fromEntries(DRIVEN.map((s) => [s, 'how it is driven, in one line']));
  return {
    info: {
      quick: false,
      runs: 3,
      pending: 1_000_000,
      startedAt: '2026-11-27T10:00:00.000Z',
      finishedAt: '2026-11-27T10:50:00.000Z',
      machine: { cpu: 'Test CPU', cores: 2, ramGiB: 8, node: 'v20', versions: { BullMQ: '6.7.0' }, commit: 'abc1234' },
      loadBefore: [0.5, 0.4, 0.3],
      loadAfter: [1, 1, 1],
      command: 'npm run bench',
      mode: {
        enqueue: 50_000,
        burst: 100_000,
        lateApiJobs: 30_000,
        bsJobs: 100_000,
        groupsJobs: 100_000,
        groupWaitBacklog: 100_000,
        debouncePushes: 100_000,
        debounceIds: 1000,
      },
      notes,
      failures: [],
      chartFile: 'bench/results/benchmarks-lateness.svg',
    },
    results,
    rounds,
  };
}
