// What a plain client's single push costs delayq's server beside the SDK's batched push and a bare Fastify route,
// all in one run: N pushes at 100 in flight (1) one job per POST /v1/jobs over node:http keep-alive to a bare
// Fastify route (bench/probes/fastify-floor.mjs: parse the JSON, answer a prepared 201), (2) the same to delayq's
// server (the built dist/ on a Redis of its own), (3) the SDK's client.push, whose pushes of a turn go out as one
// POST /v1/jobs/batch. Per round: pushes/s, server CPU µs per push (/proc of the server process) and Redis commands
// per push (INFO commandstats; a script's own commands count too), then the ratios that matter, per round.
// Usage: npx tsx bench/probes/plain-push.ts [JOBS=10000] [ROUNDS=3]
//   STORE  a config override as JSON for delayq's server (e.g. '{"store":{"kind":"sqlite"}}'); Redis when absent
//   COMPARE_SERVER  another build's server script (a copy of bench/http-server.mjs beside an older dist/), driven
//                   with the same plain single pushes as a fourth subject, so a change is measured in one run
import http from 'node:http';
import { loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { DelayqClient } from '../../src/client/client.js';
import { ensureServerBuilt, SERVER_SCRIPT } from '../build-server.js';
import { FAR_MS, IN_FLIGHT, withInFlight } from '../scenarios.js';
import { cleanup, cpuMsOf, freePort, startProcess, startRedis, type Server } from '../servers.js';
import { bodyFor } from '../subject.js';
import { redisCommandCalls } from '../subjects/delayq-subject.js';

const jobs = Number(process.argv[2] ?? 10_000);
const rounds = Number(process.argv[3] ?? 3);
const FLOOR_SCRIPT = new URL('./fastify-floor.mjs', import.meta.url).pathname;
ensureServerBuilt((line) => console.log(line));
const redis = await startRedis();
const admin = new Redis({ host: '127.0.0.1', port: redis.port });
/** Redis commands so far, and of them the script calls (EVALSHA: one a store call, whatever it carries). */
const redisCalls = async (): Promise<{ commands: number; scripts: number }> => {
  const stats = [...(await redisCommandCalls(admin))];
  return {
    commands: stats.reduce((n, [name, c]) => (name === 'info' ? n : n + c.calls), 0),
    scripts: stats.reduce((n, [name, c]) => (name.startsWith('eval') ? n + c.calls : n), 0),
  };
};

async function serve(script: string, extra: string[]): Promise<{ server: Server; origin: string }> {
  const port = await freePort();
  const server = await startProcess(script, process.execPath, [script, String(port), ...extra], port, 120_000);
  return { server, origin: `http://127.0.0.1:${port}` };
}

/** One job per request over node:http keep-alive connections, as a PHP or Python service pushes. */
function plainPusher(origin: string): { push: () => Promise<void>; close(): void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const payload = JSON.stringify({ topic: 'probe', delayMs: FAR_MS, body: bodyFor(0) });
  const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) };
  const push = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(`${origin}/v1/jobs`, { method: 'POST', agent, headers }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 201 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(payload);
    });
  return { push, close: () => agent.destroy() };
}

interface Figures {
  rate: number;
  serverUs: number;
  commands: number;
  scripts: number;
}

async function measure(server: Server, fn: () => Promise<void>): Promise<Figures> {
  const cpu0 = cpuMsOf(server.pid);
  const calls0 = await redisCalls();
  const started = performance.now();
  await withInFlight(jobs, IN_FLIGHT, fn);
  const seconds = (performance.now() - started) / 1000;
  const calls = await redisCalls();
  return {
    rate: jobs / seconds,
    serverUs: ((cpuMsOf(server.pid) - cpu0) * 1000) / jobs,
    commands: (calls.commands - calls0.commands) / jobs,
    scripts: (calls.scripts - calls0.scripts) / jobs,
  };
}

const floor = await serve(FLOOR_SCRIPT, []);
const delayq = await serve(SERVER_SCRIPT, [process.env['STORE'] ?? String(redis.port)]);
const compareScript = process.env['COMPARE_SERVER'];
const compare = compareScript ? await serve(compareScript, [process.env['STORE'] ?? String(redis.port)]) : undefined;
const compareClient = compare ? plainPusher(compare.origin) : undefined;
const floorClient = plainPusher(floor.origin);
const plainClient = plainPusher(delayq.origin);
const sdk = new DelayqClient({ url: delayq.origin });
const sdkPush = async () => {
  await sdk.push({ topic: 'probe', delayMs: FAR_MS, body: bodyFor(0) });
};
const subjects: [string, Server, () => Promise<void>][] = [
  ['bare Fastify route, node:http', floor.server, floorClient.push],
  ['delayq, node:http single', delayq.server, plainClient.push],
  ['delayq, SDK client.push', delayq.server, sdkPush],
];
if (compare && compareClient) subjects.push(['compared build, node:http single', compare.server, compareClient.push]);
const line = (label: string, f: Figures) =>
  `${label.padEnd(30)} ${String(Math.round(f.rate)).padStart(6)} pushes/s  server ${f.serverUs.toFixed(0).padStart(4)} µs  ` +
  `Redis ${f.commands.toFixed(2)} commands (${f.scripts.toFixed(3)} script calls) a push`;
try {
  // Warm-up, not recorded: the JIT of client and servers, the connections.
  for (const [, , fn] of subjects) await withInFlight(jobs / 5, IN_FLIGHT, fn);
  console.log(
    `${jobs} pushes a subject a round, ${IN_FLIGHT} in flight; host load ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  for (let round = 1; round <= rounds; round++) {
    // Alternating order, so no subject always runs on the warmest (or the busiest) host.
    const order = round % 2 ? subjects : [...subjects].reverse();
    const got = new Map<string, Figures>();
    for (const [label, server, fn] of order) {
      const f = await measure(server, fn);
      got.set(label, f);
      console.log(`round ${round}  ${line(label, f)}`);
    }
    const [bare, plain, batched] = subjects.map(([label]) => got.get(label)!);
    console.log(
      `round ${round}  plain/SDK server CPU ${(plain!.serverUs / batched!.serverUs).toFixed(2)}×, ` +
        `plain/bare Fastify ${(plain!.serverUs / bare!.serverUs).toFixed(2)}× (${(plain!.serverUs - bare!.serverUs).toFixed(0)} µs above), ` +
        `plain/SDK pushes/s ${(plain!.rate / batched!.rate).toFixed(2)}×`,
    );
    const other = subjects[3] && got.get(subjects[3][0]);
    if (other)
      console.log(
        `round ${round}  plain, this build/compared build: server CPU ${(plain!.serverUs / other.serverUs).toFixed(2)}×, ` +
          `pushes/s ${(plain!.rate / other.rate).toFixed(2)}×`,
      );
  }
} finally {
  floorClient.close();
  plainClient.close();
  compareClient?.close();
  await compare?.server.stop();
  await sdk.close();
  await floor.server.stop();
  await delayq.server.stop();
  admin.disconnect();
  await cleanup();
}
