// The figures of flow control (flow-control.ts, debounce-storm.ts): groups drained in turn against no groups,
// a one-job group's wait beside a big group's backlog (both on the second page: BullMQ has no open-source
// groups, so there is no peer), and the debounce storm beside BullMQ's deduplication.
import { n, type Figure } from './figure.js';
import { DEBOUNCE_DELAY_MS, DEBOUNCE_MAX_WAIT_MS, BULLMQ_DEBOUNCE } from './debounce-storm.js';
import { DRAIN_GROUP_CONCURRENCY, DRAIN_GROUPS, groupRows, groupScenario, ONE_JOB_RATE } from './flow-control.js';
import type { FlowStore } from './flow-server.js';
import { fmt } from './lib.js';
import { BULK_SIZE, CONSUMER_CONCURRENCY, IN_FLIGHT } from './scenarios.js';

const NO_BULLMQ =
  'BullMQ has no open-source groups (groups, their concurrency and their round-robin are BullMQ Pro features), so there is no BullMQ row.';
/** " on Redis" in the title of a Redis figure; the embedded store's keep their titles. */
const on = (store: FlowStore) => (store === 'embedded' ? '' : ' on Redis');
const serverOn = (store: FlowStore) =>
  `delayq's built server in its own process on ${store === 'embedded' ? 'the embedded store' : "the benchmark's own Redis (one partition, as `delayq serve` chooses on a single Redis; emptied before)"}, fresh each round and warmed by an unrecorded drain of each variant, half the measured drain's size; the SDK \`Worker\` (concurrency ${CONSUMER_CONCURRENCY}) consumes`;

export const FIGURES_FLOW: readonly Figure[] = [
  {
    id: 'debounce',
    title: (m) => `Debounce storm: ${n(m, 'debouncePushes')} pushes of ${n(m, 'debounceIds')} ids`,
    scenarios: ['debounce'],
    metric: 'rate',
    unit: 'pushes/s',
    better: 'higher',
    peers: [BULLMQ_DEBOUNCE],
    also: [
      { metric: 'created', header: 'jobs made' },
      { metric: 'fired', header: 'ids fired' },
      { metric: 'doubled', header: 'fired twice' },
      { metric: 'kept', header: 'pushes after the fire (kept)' },
      { metric: 'lastFireMs', header: 'last fire after the storm, ms' },
    ],
    scenario: (m) =>
      `Empty system, a consumer waiting (concurrency ${CONSUMER_CONCURRENCY}). ${n(m, 'debouncePushes')} single pushes, ` +
      `${IN_FLIGHT} in flight, the k-th of id k mod ${n(m, 'debounceIds')}: delayq over HTTP (the SDK client, server in its own ` +
      `process) with \`delayMs: ${DEBOUNCE_DELAY_MS}\`, \`onExists: 'extend'\`, \`maxWaitMs: ${DEBOUNCE_MAX_WAIT_MS}\`; BullMQ ` +
      `\`queue.add\` with \`delay: ${DEBOUNCE_DELAY_MS}\`, \`deduplication: { id, reschedule: true }\` (a duplicate moves the delayed ` +
      `job to its own delay, data kept: the nearest to \`extend\`; BullMQ has no bound like \`maxWaitMs\`). Rate = pushes ÷ the storm's ` +
      `time; then each id must have made one job and fired once (counted by the consumer until every id fired, and 0.5 s more). ` +
      `A job whose \`maxWaitMs\` passes during the storm fires then, and its id's later pushes answer \`kept\` ` +
      `(the last fire then comes before the storm's end: a negative value).`,
    only: 'debounce',
    bounds: `a push that finds its id taken rewrites the job's due time in the push's own transaction (SQLite) or a second script (Redis)`,
    boundsDoc: 'docs/performance.md#debounce-storm',
  },
  ...groupFigures('embedded'),
  ...groupFigures('redis'),
];

/** The two groups figures of one store: the drain with groups against without, and a one-job group's wait. */
function groupFigures(store: FlowStore): Figure[] {
  const rows = groupRows(store);
  return [
    {
      id: groupScenario('groups', store),
      page: 'detail',
      title: (m) =>
        `Groups${on(store)}: ${n(m, 'groupsJobs')} ready jobs in ${fmt(DRAIN_GROUPS)} groups, groupConcurrency ${DRAIN_GROUP_CONCURRENCY}, drained`,
      scenarios: [groupScenario('groups', store)],
      metric: 'rate',
      unit: 'jobs/s',
      better: 'higher',
      peers: [rows.noGroups],
      also: [{ metric: 'missing', header: 'not finished' }],
      scenario: (m) =>
        `${serverOn(store)}. Per row a fresh topic of ${n(m, 'groupsJobs')} jobs ready at once, pushed in batches of ${fmt(BULK_SIZE)}: ` +
        `job i of group \`g<i mod ${fmt(DRAIN_GROUPS)}>\` in a topic with \`groupConcurrency: ${DRAIN_GROUP_CONCURRENCY}\`, and the same ` +
        `jobs without groups; then drained. Rate = jobs ÷ (last finish answered − the Worker's start). Goal: groups ≥ 0.8× no groups. ` +
        NO_BULLMQ,
      only: groupScenario('groups', store),
      bounds:
        store === 'embedded'
          ? `a reserve of a topic with groupConcurrency takes its jobs one at a time, each group's count and next job an index seek`
          : `a reserve of a topic with groupConcurrency is one script over every partition, reading each group's count and lane in turn`,
      boundsDoc: 'docs/performance.md#groups',
    },
    {
      id: groupScenario('group-wait', store),
      page: 'detail',
      title: (m) =>
        `Groups${on(store)}: a one-job group's wait beside a group of ${n(m, 'groupWaitBacklog')} ready jobs: p99`,
      scenarios: [groupScenario('group-wait', store)],
      metric: 'p99',
      unit: 'ms',
      better: 'lower',
      peers: [],
      also: [
        { metric: 'p50', header: 'p50 ms' },
        { metric: 'max', header: 'max ms' },
        { metric: 'samples', header: 'one-job groups' },
        { metric: 'missing', header: 'not delivered' },
        { metric: 'backlogPerS', header: 'backlog drained, jobs/s' },
      ],
      scenario: (m) =>
        `${serverOn(store)}. Per row a fresh topic: ${n(m, 'groupWaitBacklog')} ready jobs of one group pushed in batches of ` +
        `${fmt(BULK_SIZE)}, then the Worker starts and one producer pushes ${ONE_JOB_RATE} jobs/s (single pushes, each due at once) ` +
        `each of a fresh group, until 90 % of the backlog is delivered. Wait = delivery − the instant before the push. With ` +
        `\`groupConcurrency: ${CONSUMER_CONCURRENCY}\` (the big group may take every slot of the consumer); the row "${rows.waitReadyOrder}" ` +
        `is the same without it, where each one-job group waits behind the backlog. Goal: p99 ≤ 50 ms. ${NO_BULLMQ}`,
      only: groupScenario('group-wait', store),
      bounds: `groups are served in turn: a new group's job is taken by the next reserve, after a free slot of the consumer`,
      boundsDoc: 'docs/performance.md#groups',
    },
  ];
}
