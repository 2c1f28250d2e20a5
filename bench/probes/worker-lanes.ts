// The SDK Worker draining over the API with 1 or 2 reserve lanes: the built server on the embedded store or on a
// Redis of its own, N ready jobs pushed beforehand, one Worker (concurrency 100). Per reserve request: the jobs it
// brought, the acks it carried and how long it took; the CPU per job of the server and of this process.
// Usage: npx tsx bench/probes/worker-lanes.ts [LANES=2] [sqlite|redis]
import { join } from 'node:path';
import { DelayqClient } from '../../src/client/client.js';
import { Worker } from '../../src/client/worker.js';
import { ensureServerBuilt, SERVER_SCRIPT } from '../build-server.js';
import { sleep } from '../lib.js';
import { cleanup, cpuMsOf, freePort, startProcess, startRedis, tempDir } from '../servers.js';
ensureServerBuilt(console.error);
const lanes = Number(process.argv[2] ?? 2);
const N = 30000;
const dir = tempDir('lanes');
const port = await freePort();
const kind = process.argv[3] ?? 'sqlite';
const overrides =
  kind === 'sqlite'
    ? { store: { kind: 'sqlite' }, sqlite: { path: join(dir, 'x.db') } }
    : { store: { kind: 'redis' }, redis: { url: `redis://127.0.0.1:${(await startRedis()).port}` } };
const server = await startProcess(
  's',
  process.execPath,
  [SERVER_SCRIPT, String(port), JSON.stringify(overrides)],
  port,
  60000,
);
const client = new DelayqClient({ url: `http://127.0.0.1:${port}` });
for (let i = 0; i < N; i += 1000)
  await client.pushBatch(Array.from({ length: 1000 }, () => ({ topic: 't', body: { a: 1 } })));
let calls = 0,
  got = 0,
  carried = 0,
  waited = 0;
const orig = client.reserveAndAck.bind(client);
client.reserveAndAck = async (req, opts) => {
  calls++;
  carried += req.acks?.length ?? 0;
  const t = performance.now();
  const a = await orig(req, opts);
  waited += performance.now() - t;
  got += a.reservations.length;
  return a;
};
let done = 0;
const t0 = performance.now();
const [serverCpu0, clientCpu0] = [cpuMsOf(server.pid), process.cpuUsage()];
const w = new Worker(client, { handlers: { t: () => void done++ }, concurrency: 100, lanes, waitMs: 1000 }).start();
while (done < N) await sleep(10);
const ms = performance.now() - t0;
const serverUs = ((cpuMsOf(server.pid) - serverCpu0) * 1000) / N;
const clientCpu = process.cpuUsage(clientCpu0);
const clientUs = (clientCpu.user + clientCpu.system) / N;
await w.close();
console.log(
  `${kind} lanes ${lanes}: ${Math.round(N / (ms / 1000))}/s; reserve calls ${calls}, jobs per reserve ${(got / calls).toFixed(1)}, acks carried per reserve ${(carried / calls).toFixed(1)}, mean reserve wait ${(waited / calls).toFixed(1)} ms; CPU per job: server ${serverUs.toFixed(0)} µs, this process ${clientUs.toFixed(0)} µs`,
);
await client.close();
await server.stop();
await cleanup();
