/**
 * A delayq process for the crash test: jobs and delivery bindings in the SQLite file argv[2]; binds argv[4] to the
 * webhook argv[3], pushes one job and reports its id, then keeps delivering until it is killed.
 */
import { PushHarness } from './harness.js';

const [path, url, topic] = process.argv.slice(2) as [string, string, string];
const harness = await new PushHarness({ path }).start();
await harness.bindings.setBinding(topic, { type: 'webhook', url, allowedRanges: ['loopback'], timeoutMs: 1000 });
const job = await harness.push({
  topic,
  body: { crash: 'test' },
  retry: { maxAttempts: 5, backoff: { type: 'fixed', delayMs: 100 } },
});
process.stdout.write(`pushed ${job.id}\n`);
