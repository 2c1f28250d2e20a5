/**
 * One delayq process for the groups test: a whole node's runtime on the store the config overrides name (Redis,
 * or Redis with a SQL journal), consuming one topic with several loops (reserve, hold the jobs a while, finish).
 * Told 'stop', it reports each job it finished with its group and the span it held it, on this host's clock:
 * from the reserve's answer to the finish's call. That span lies inside the store's own (the job is reserved
 * before the answer comes and released after the finish is called), where the store's reservedAt is the `now`
 * its caller took before the call, which under load can be tens of ms before the script ran.
 * Run with: node --import tsx test/helpers/group-worker.ts <config overrides as JSON> <topic> <name> <holdMs>
 */
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/runtime.js';

const [overrides, topic, name, holdMs] = process.argv.slice(2) as [string, string, string, string];
const runtime = createRuntime(loadConfig({ env: {}, overrides: { ...JSON.parse(overrides), nodeId: name } }));
await runtime.start();
const { service } = runtime;

interface Done {
  id: string;
  group: string | null;
  from: number;
  to: number;
}
const done: Done[] = [];
let stopping = false;
const consume = async (): Promise<void> => {
  while (!stopping) {
    const got = await service.reserve({ topics: [topic], count: 3, waitMs: 200 });
    const from = Date.now();
    await new Promise((r) => setTimeout(r, Number(holdMs)));
    for (const r of got) {
      const to = Date.now();
      await service.finish(r.job.id, r.token);
      done.push({ id: r.job.id, group: r.job.group ?? null, from, to });
    }
  }
};
const loops = Array.from({ length: 4 }, consume);

process.on('message', (m: 'stop') => {
  if (m !== 'stop') return;
  stopping = true;
  void Promise.all(loops).then(async () => {
    process.send!({ done });
    await runtime.close();
    process.disconnect();
  });
});
process.send!({ ready: true });
