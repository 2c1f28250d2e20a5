/**
 * The long form of the HTTP fuzz: `npm run fuzz:http -- --requests 100000 --seed 1 --port 7660`.
 * Prints the report as JSON and exits non-zero on any 5xx, crash, unanswered request or unexplained 4xx.
 */
import { parseArgs } from 'node:util';
import { runHttpFuzz } from './http-fuzzer.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '1' },
    port: { type: 'string', default: '7660' },
    concurrency: { type: 'string', default: '16' },
    'max-minutes': { type: 'string', default: '20' },
  },
});
const report = await runHttpFuzz({
  requests: Number(values.requests),
  seed: Number(values.seed),
  port: Number(values.port),
  concurrency: Number(values.concurrency),
  maxDurationMs: Number(values['max-minutes']) * 60_000,
});
process.stdout.write(
  `${JSON.stringify({ ...report, requestsPerSecond: Math.round(report.sent / (report.durationMs / 1000)) }, null, 2)}\n`,
);
const failed =
  report.crashed ||
  !report.healthyAfter ||
  report.serverErrors.length + report.uncoded4xx.length + report.unanswered.length + report.serverLogErrors.length > 0;
process.exit(failed ? 1 : 0);
