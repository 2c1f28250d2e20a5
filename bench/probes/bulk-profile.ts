// Where the time goes while a bulk cancel runs beside a 1k/s stream (bench/bulk-cancel.ts): each store call's
// duration by operation (the service's 'storeCall' events), the event loop's delay, and this process's CPU,
// split into the baseline window and the cancel. Redis's own time per script is in its SLOWLOG (threshold
// 5 ms). Usage: npx tsx bench/probes/bulk-profile.ts [JOBS=100000] [stores: embedded,redis,postgres]
import { createHash } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { SCRIPT_NAMES, scriptSource } from '../../src/store/redis/scripts.js';
import { bulkCancel } from '../bulk-cancel.js';
import { cleanup, startRedis } from '../servers.js';
import { DelayqSubject, redisCpuMs } from '../subjects/delayq-subject.js';
import { POSTGRES } from '../subjects/sql-databases.js';

const jobs = Number(process.argv[2] ?? 100_000);
const wanted = (process.argv[3] ?? 'embedded,redis,postgres').split(',');
const redis = await startRedis();
const make: Record<string, () => DelayqSubject> = {
  embedded: () => new DelayqSubject({ kind: 'sqlite' }),
  redis: () => new DelayqSubject({ kind: 'redis', port: redis.port }),
  postgres: () => new DelayqSubject({ kind: 'journal', port: redis.port, sql: POSTGRES }),
};
const scriptBySha = new Map<string, string>(
  SCRIPT_NAMES.map((name) => [createHash('sha1').update(scriptSource(name)).digest('hex'), name]),
);
const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
const pct = (xs: number[], p: number): number => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))]!;
};
try {
  for (const key of wanted) {
    const subject = make[key]!();
    await subject.open();
    const admin = key === 'embedded' ? undefined : new Redis({ port: redis.port });
    const calls = new Map<string, number[]>();
    const callsBefore = new Map<string, number[]>();
    let recording = false;
    subject.svc.events.on('storeCall', ({ operation, durationMs }) => {
      const into = recording ? calls : callsBefore;
      let list = into.get(operation);
      if (!list) into.set(operation, (list = []));
      list.push(durationMs);
    });
    const loop = monitorEventLoopDelay({ resolution: 5 });
    // The bulk's first call marks the start of the cancel window (bulkCancel pushes its jobs first).
    const bulk = subject.svc.bulk.apply.bind(subject.svc.bulk);
    let cpuAt: NodeJS.CpuUsage | undefined;
    let redisCpuAt: Promise<number> | undefined;
    let cpuEnd: NodeJS.CpuUsage | undefined;
    let redisCpuEnd: number | undefined;
    subject.svc.bulk.apply = (input) => {
      if (!recording) {
        recording = true;
        loop.enable();
        cpuAt = process.cpuUsage();
        redisCpuAt = admin && redisCpuMs(admin);
      }
      return bulk(input).then(async (slice) => {
        // the cancel's last call ends the window (the scenario then keeps its stream a while longer)
        if (slice.next === null) [cpuEnd, redisCpuEnd] = [process.cpuUsage(cpuAt), admin && (await redisCpuMs(admin))];
        return slice;
      });
    };
    // SLOWLOG_ALL=1 logs every command, to sum Redis's time by script (the log holds the last 1M)
    const all = process.env['SLOWLOG_ALL'] === '1';
    await admin?.config('SET', 'slowlog-log-slower-than', all ? '0' : '5000');
    if (all) await admin?.config('SET', 'slowlog-max-len', '1000000');
    await admin?.slowlog('RESET');
    const o = await bulkCancel(subject, jobs);
    loop.disable();
    const cpu = cpuEnd!;
    const redisCpu = redisCpuEnd === undefined ? undefined : redisCpuEnd - (await redisCpuAt!);
    console.log(`\n== ${o.system}: ${o.cancelled} cancelled at ${Math.round(o.jobsPerS)}/s in ${o.calls} calls`);
    console.log(`stream p99 before ${o.p99Before} ms, during ${o.p99During} ms (max ${o.maxDuring})`);
    console.log(
      `event-loop delay p50 ${(loop.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms, max ${(loop.max / 1e6).toFixed(1)} ms`,
    );
    console.log(
      `CPU from the cancel's first call to its last: this process ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms` +
        (redisCpu === undefined ? '' : `, Redis ${redisCpu.toFixed(0)} ms`),
    );
    for (const [op, d] of [...calls].sort((a, b) => sum(b[1]) - sum(a[1])))
      console.log(
        `  ${op.padEnd(14)} ${String(d.length).padStart(7)} calls  p50 ${pct(d, 0.5).toFixed(1)}  p99 ${pct(d, 0.99).toFixed(1)}  max ${Math.max(...d).toFixed(1)} ms` +
          ` (before the cancel: p50 ${pct(callsBefore.get(op) ?? [], 0.5).toFixed(1)}  p99 ${pct(callsBefore.get(op) ?? [], 0.99).toFixed(1)})`,
      );
    if (admin) {
      await admin.config('SET', 'slowlog-log-slower-than', '1000000');
      const slow = (await admin.slowlog('GET', all ? 1_000_000 : 1000)) as [number, number, number, string[]][];
      const byCmd = new Map<string, number[]>();
      for (const [, , us, args] of slow) {
        const name = args[0]?.toLowerCase() === 'evalsha' ? `script ${scriptBySha.get(args[1]!) ?? '?'}` : args[0]!;
        byCmd.set(name, [...(byCmd.get(name) ?? []), us / 1000]);
      }
      for (const [cmd, d] of [...byCmd].sort((a, b) => sum(b[1]) - sum(a[1])))
        console.log(
          all
            ? `  redis ${cmd}: ${d.length} calls, ${sum(d).toFixed(0)} ms in all, p50 ${pct(d, 0.5).toFixed(2)} max ${Math.max(...d).toFixed(1)} ms`
            : `  redis slowlog ${cmd}: ${d.length} over 5 ms, max ${Math.max(...d).toFixed(1)} ms`,
        );
      admin.disconnect();
    }
    await subject.close();
  }
} finally {
  await cleanup();
}
