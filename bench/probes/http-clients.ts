// Which HTTP client the SDK should use, and what a push costs delayq's server beside Fastify's floor: the same
// single pushes (POST /v1/jobs, 100 in flight) through Node's global fetch, node:http with a keep-alive agent
// and undici's Pool, in alternating rounds against one or more servers in processes of their own. Prints
// jobs/s, CPU per request of this process and of the server, and Redis commands per request.
// Usage: npx tsx bench/probes/http-clients.ts [JOBS=10000] [ROUNDS=3] [CLIENTS] (CLIENTS: a comma list of the
// names below). Environment:
//   PROBE_SERVERS   comma list of server scripts (default: the built dist/, bench/http-server.mjs); e.g.
//                   `bench/probes/fastify-floor.mjs,bench/http-server.mjs` sets Fastify's floor beside delayq,
//                   or a copy of http-server.mjs beside an older dist/ compares two builds in one run
//   STORE           a config override as JSON for delayq's servers (e.g. '{"store":{"kind":"sqlite"}}');
//                   our own Redis when absent
//   SERVER_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=.tmp/server-prof" profiles the servers; summarize the
//                   profile with bench/probes/profile-summary.ts.
import http from 'node:http';
import { basename, dirname } from 'node:path';
import { Redis } from 'ioredis';
import { Pool } from 'undici';
import { ensureServerBuilt, SERVER_SCRIPT } from '../build-server.js';
import { FAR_MS, IN_FLIGHT, withInFlight } from '../scenarios.js';
import { cleanup, cpuMsOf, freePort, startProcess, startRedis, type Server } from '../servers.js';
import { bodyFor } from '../subject.js';
import { redisCommandCalls } from '../subjects/delayq-subject.js';

const jobs = Number(process.argv[2] ?? 10_000);
const rounds = Number(process.argv[3] ?? 3);
const wanted = process.argv[4]?.split(',');
ensureServerBuilt((line) => console.log(line));
const redis = await startRedis();
const nodeOptions = process.env['SERVER_NODE_OPTIONS']?.split(' ').filter(Boolean) ?? [];
const scripts = process.env['PROBE_SERVERS']?.split(',') ?? [SERVER_SCRIPT];
const store = process.env['STORE'] ?? String(redis.port);
const admin = new Redis({ host: '127.0.0.1', port: redis.port });
/** Redis commands so far (EVALSHA counts once, and so does each command a script runs). */
const redisCalls = async (): Promise<number> =>
  [...(await redisCommandCalls(admin))].reduce((n, [name, c]) => (name === 'info' ? n : n + c.calls), 0);
const payload = JSON.stringify({ topic: 'probe', delayMs: FAR_MS, body: bodyFor(0) });
const headers = { 'content-type': 'application/json', accept: 'application/json' };

interface Target {
  label: string;
  server: Server;
  clients: Record<string, () => Promise<void>>;
  close(): Promise<void>;
}

async function target(script: string): Promise<Target> {
  const port = await freePort();
  const server = await startProcess(
    script,
    process.execPath,
    [...nodeOptions, script, String(port), store],
    port,
    120_000,
  );
  const origin = `http://127.0.0.1:${port}`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const pool = new Pool(origin, { connections: IN_FLIGHT, pipelining: 1 });
  const created = (status: number | undefined) => status === 201 || status === 200;
  const clients: Record<string, () => Promise<void>> = {
    fetch: async () => {
      const res = await fetch(`${origin}/v1/jobs`, { method: 'POST', headers, body: payload });
      await res.text();
      if (!created(res.status)) throw new Error(`status ${res.status}`);
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
              created(res.statusCode) ? resolve() : reject(new Error(`status ${res.statusCode} ${text}`)),
            );
          },
        );
        req.on('error', reject);
        req.end(payload);
      }),
    'undici Pool': async () => {
      const res = await pool.request({ path: '/v1/jobs', method: 'POST', headers, body: payload });
      await res.body.text();
      if (!created(res.statusCode)) throw new Error(`status ${res.statusCode}`);
    },
  };
  for (const name of Object.keys(clients)) if (wanted && !wanted.includes(name)) delete clients[name];
  return {
    label: `${basename(dirname(script))}/${basename(script)}`,
    server,
    clients,
    close: async () => {
      agent.destroy();
      await pool.close();
      await server.stop();
    },
  };
}

const targets: Target[] = [];
try {
  for (const script of scripts) targets.push(await target(script));
  // Warm-up, not recorded: the JIT of client and server, the connections.
  for (const t of targets) for (const fn of Object.values(t.clients)) await withInFlight(jobs / 5, IN_FLIGHT, fn);
  for (let round = 1; round <= rounds; round++) {
    for (const t of targets) {
      for (const [name, fn] of Object.entries(t.clients)) {
        const cpu0 = process.cpuUsage();
        const server0 = cpuMsOf(t.server.pid);
        const calls0 = await redisCalls();
        const started = performance.now();
        await withInFlight(jobs, IN_FLIGHT, fn);
        const seconds = (performance.now() - started) / 1000;
        const cpu = process.cpuUsage(cpu0);
        const serverUs = ((cpuMsOf(t.server.pid) - server0) * 1000) / jobs;
        const calls = ((await redisCalls()) - calls0) / jobs;
        console.log(
          `round ${round} ${t.label.padEnd(32)} ${name.padEnd(22)} ${String(Math.round(jobs / seconds)).padStart(6)} pushes/s  ` +
            `client ${((cpu.user + cpu.system) / jobs).toFixed(0).padStart(4)} µs  server ${serverUs.toFixed(0).padStart(4)} µs a request  ` +
            `Redis ${calls.toFixed(2)} commands a request`,
        );
      }
    }
  }
} finally {
  for (const t of targets) await t.close();
  admin.disconnect();
  await cleanup();
}
