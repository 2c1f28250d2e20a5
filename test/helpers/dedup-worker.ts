/**
 * One delayq process for the dedup window test: a whole node's runtime on the store the config overrides name
 * (Redis, or Redis with a SQL journal). Told to push, it sends its share of concurrent pushes of distinct ids
 * with one dedupKey and reports their answers.
 * Run with: node --import tsx test/helpers/dedup-worker.ts <config overrides as JSON> <topic> <name>
 */
import { loadConfig } from '../../src/config.js';
import { pushOutcomeOf } from '../../src/core/push-on-exists.js';
import { createRuntime } from '../../src/runtime.js';

const [overrides, topic, name] = process.argv.slice(2) as [string, string, string];
const runtime = createRuntime(loadConfig({ env: {}, overrides: { ...JSON.parse(overrides), nodeId: name } }));
await runtime.start();
const { service } = runtime;

process.on('message', (m: 'stop' | { key: string; count: number }) => {
  if (m === 'stop') {
    void runtime.close().then(() => process.disconnect());
    return;
  }
  void Promise.all(
    Array.from({ length: m.count }, (_, i) =>
      service.push({ id: `${name}-${i}`, topic, dedupKey: m.key, dedupWindowMs: '10m' }),
    ),
  ).then((answers) => process.send!({ answers: answers.map((a) => ({ outcome: pushOutcomeOf(a), id: a.job.id })) }));
});
process.send!({ ready: true });
