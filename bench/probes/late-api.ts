// The bench's "late-api" scenario (lateness-breakdown.ts: a preloaded backlog coming due at 1k/s, the SDK
// Worker consuming over HTTP) for one store, a few rounds on one server, with each stage's p99 and the
// server's CPU per job. DELAYQ_BENCH_SERVER_ARGS="--cpu-prof --cpu-prof-dir=DIR" profiles the server;
// TMPDIR puts the embedded store's file elsewhere (e.g. /dev/shm, to tell the disk from the CPU).
// Usage: npx tsx bench/probes/late-api.ts [embedded|redis] [JOBS=30000] [ROUNDS=2]
import { ensureServerBuilt } from '../build-server.js';
import { preloadedLateness } from '../lateness-breakdown.js';
import { cleanup, cpuMsOf, startRedis } from '../servers.js';
import { DelayqHttpSubject } from '../subjects/delayq-http-subject.js';

/** The server's store calls so far, by operation (its /metrics). */
function storeCallsByOperation(metrics: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of metrics.matchAll(/^delayq_store_call_seconds_count\{[^}]*operation="([^"]+)"[^}]*\} (\d+)$/gm))
    out.set(m[1]!, (out.get(m[1]!) ?? 0) + Number(m[2]));
  return out;
}

const store = process.argv[2] ?? 'embedded';
const jobs = Number(process.argv[3] ?? 30_000);
const rounds = Number(process.argv[4] ?? 2);
const backend =
  store === 'redis' ? { kind: 'redis' as const, port: (await startRedis()).port } : { kind: 'sqlite' as const };
ensureServerBuilt((line) => console.error(line));
const subject = new DelayqHttpSubject(backend, 'sdk');
try {
  await subject.open();
  const pid = (subject as unknown as { server: { pid: number } }).server.pid;
  for (let round = 1; round <= rounds; round++) {
    const cpu0 = cpuMsOf(pid);
    const calls0 = storeCallsByOperation(await subject.metricsText());
    const r = await preloadedLateness(subject, jobs, 1000, 5000);
    const cpu = cpuMsOf(pid) - cpu0;
    const calls = storeCallsByOperation(await subject.metricsText());
    const perJob = [...calls]
      .map(([op, n]) => [op, (n - (calls0.get(op) ?? 0)) / jobs] as const)
      .filter(([, n]) => n >= 0.01)
      .map(([op, n]) => `${op} ${n.toFixed(2)}`);
    console.log(`store calls a job: ${perJob.join(', ')}`);
    console.log(
      `round ${round}: p50 ${r.p50} p99 ${r.p99} max ${r.max} ms; due→ready p99 ${r.dueReadyP99}, ready→reserved ${r.readyReservedP99}, ` +
        `trip ${r.tripP99}; jobs/promote ${r.jobsPerPromote?.toFixed(2)}, jobs/reserve ${r.jobsPerReserve?.toFixed(2)}; ` +
        `server ${((cpu * 1000) / jobs).toFixed(0)} µs/job; missing ${r.missing}`,
    );
  }
} finally {
  await subject.close();
  await cleanup();
}
