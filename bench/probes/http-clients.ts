// Which HTTP client the SDK should use: the same single pushes (POST /v1/jobs, 100 in flight) through Node's
// global fetch, node:http with a keep-alive agent, and undici's Pool, in alternating rounds against one
// delayq server (Redis store) in its own process. Prints jobs/s and CPU per request of this process and of
// the server (the built dist/, bench/http-server.mjs). Usage: npx tsx bench/probes/http-clients.ts
// [JOBS=10000] [ROUNDS=3] [CLIENTS] (CLIENTS: a comma list of the names below). SERVER_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=.tmp/server-prof" profiles the server; summarize
// the profile with bench/probes/profile-summary.ts.
import http from 'node:http';
import { Pool } from 'undici';
import { ensureServerBuilt, SERVER_SCRIPT } from '../build-server.js';
import { FAR_MS, IN_FLIGHT, withInFlight } from '../scenarios.js';
import { cleanup, cpuMsOf, freePort, startProcess, startRedis } from '../servers.js';
import { bodyFor } from '../subject.js';

const jobs = Number(process.argv[2] ?? 10_000);
const rounds = Number(process.argv[3] ?? 3);
ensureServerBuilt((line) => console.log(line));
const redis = await startRedis();
const port = await freePort();
const nodeOptions = process.env['SERVER_NODE_OPTIONS']?.split(' ').filter(Boolean) ?? [];
const server = await startProcess(
  'delayq',
  process.execPath,
  [...nodeOptions, SERVER_SCRIPT, String(port), String(redis.port)],
  port,
  120_000,
);
const origin = `http://127.0.0.1:${port}`;
const payload = JSON.stringify({ topic: 'probe', delayMs: FAR_MS, body: bodyFor(0) });
const headers = { 'content-type': 'application/json', accept: 'application/json' };

const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
const pool = new Pool(origin, { connections: IN_FLIGHT, pipelining: 1 });

const clients: Record<string, () => Promise<void>> = {
  fetch: async () => {
    const res = await fetch(`${origin}/v1/jobs`, { method: 'POST', headers, body: payload });
    if (res.status !== 201) throw new Error(`status ${res.status}`);
    await res.text();
  },
  'node:http keep-alive': () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        `${origin}/v1/jobs`,
        { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(payload) } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () =>
            res.statusCode === 201 ? resolve() : reject(new Error(`status ${res.statusCode} ${text}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(payload);
    }),
  'undici Pool': async () => {
    const res = await pool.request({ path: '/v1/jobs', method: 'POST', headers, body: payload });
    await res.body.text();
    if (res.statusCode !== 201) throw new Error(`status ${res.statusCode}`);
  },
};

const wanted = process.argv[4]?.split(',');
for (const name of Object.keys(clients)) if (wanted && !wanted.includes(name)) delete clients[name];

try {
  for (const fn of Object.values(clients)) await withInFlight(jobs / 5, IN_FLIGHT, fn); // warm-up: JIT, connections
  for (let round = 1; round <= rounds; round++) {
    for (const [name, fn] of Object.entries(clients)) {
      const cpu0 = process.cpuUsage();
      const server0 = cpuMsOf(server.pid);
      const started = performance.now();
      await withInFlight(jobs, IN_FLIGHT, fn);
      const seconds = (performance.now() - started) / 1000;
      const cpu = process.cpuUsage(cpu0);
      const serverUs = ((cpuMsOf(server.pid) - server0) * 1000) / jobs;
      console.log(
        `round ${round} ${name.padEnd(22)} ${String(Math.round(jobs / seconds)).padStart(6)} pushes/s  ` +
          `client ${((cpu.user + cpu.system) / jobs).toFixed(0).padStart(4)} µs  server ${serverUs.toFixed(0).padStart(4)} µs a request`,
      );
    }
  }
} finally {
  agent.destroy();
  await pool.close();
  await server.stop();
  await cleanup();
}
