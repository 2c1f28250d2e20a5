// Child-process entry point: one whole delayq node (createRuntime: store, timer, schedule runner) on the
// Redis the parent names; no HTTP. The parent kills it with SIGKILL. Prints `READY` once running.
// argv[2]: JSON ScheduleNodeSpec.
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/runtime.js';

export interface ScheduleNodeSpec {
  nodeId: string;
  redisUrl: string;
  redisPrefix: string;
}

const spec = JSON.parse(process.argv[2]!) as ScheduleNodeSpec;
const logger = pino({ level: 'warn', base: { node: spec.nodeId } }, pino.destination(2));
const config = loadConfig({
  env: {},
  overrides: { nodeId: spec.nodeId, store: { kind: 'redis' }, redis: { url: spec.redisUrl, prefix: spec.redisPrefix } },
});
const runtime = createRuntime(config, { logger });
await runtime.start();
process.stdout.write('READY\n');

process.once('SIGTERM', () => {
  void runtime.close().then(() => process.exit(0));
});
