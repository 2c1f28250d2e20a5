// Where a journal restore's time goes: fills a fresh journal (PostgreSQL or MariaDB) with N jobs, empties a
// Redis of its own, then times the restore with a CPU profile of this process over the restore only, and the
// journal's read alone (the keyset pages, no writes) for comparison.
// Usage: npx tsx bench/probes/restore-profile.ts postgres|mysql [N=200000] [REDIS_PORT]
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { JournaledStore } from '../../src/journal/journaled-store/journaled-store.js';
import { MysqlJournal } from '../../src/journal/sql/mysql/mysql-journal.js';
import { PostgresJournal } from '../../src/journal/sql/postgres/postgres-journal.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { fillJournal } from '../journal-restore.js';
import { cleanup, startRedis } from '../servers.js';
import { dropSqlDatabase, MARIADB, newSqlDatabase, POSTGRES } from '../subjects/sql-databases.js';
import { redisCpuMs } from '../subjects/delayq-subject.js';
import { startCpuProfile } from './cpu-profile.js';

/** CPU ms of this probe's PostgreSQL backends (found by application_name), per pid, read from /proc. */
async function backendCpuMs(appName: string): Promise<Map<number, number>> {
  const client = new pg.Client({ connectionString: POSTGRES.url });
  await client.connect();
  const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [
    appName,
  ]);
  await client.end();
  const tick = 10; // ms per clock tick (USER_HZ 100)
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    cpu.set(pid, (Number(fields[11]) + Number(fields[12])) * tick);
  }
  return cpu;
}

const [dialect = 'postgres', countArg = '200000'] = process.argv.slice(2);
const count = Number(countArg);
const sql = dialect === 'postgres' ? POSTGRES : MARIADB;
const server = await startRedis();
const name = await newSqlDatabase(sql);
const admin = new Redis({ host: '127.0.0.1', port: server.port });
const appName = `dq_restore_probe_${randomBytes(3).toString('hex')}`;
const journal =
  sql.dialect === 'postgres'
    ? new PostgresJournal({ connectionString: `${sql.url}?application_name=${appName}`, schema: name })
    : new MysqlJournal({ uri: `${sql.url}/${name}` });
const redis = new RedisStore({ url: `redis://127.0.0.1:${server.port}`, nodeId: 'probe', commandTimeoutMs: 30_000 });
const store = new JournaledStore(redis, journal, { nodeId: 'probe', clock: redis.clock });
try {
  await store.open();
  let t = performance.now();
  await fillJournal(journal, count, store.clock.now());
  console.log(`fill ${count}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
  t = performance.now();
  let pages = 0;
  for (let after: string | null = null; ; pages++) {
    const rows = await journal.listUnfinished(after, 5000);
    if (!rows.length) break;
    after = rows[rows.length - 1]!.id;
  }
  console.log(`read alone (${pages} pages of 5000): ${((performance.now() - t) / 1000).toFixed(1)} s`);
  await admin.flushall(); // the probe's own Redis
  // Busy time per part (parts overlap, so they add up to more than the wall time).
  const busy = new Map<string, number>();
  const timed = <T extends object>(target: T, method: keyof T & string, label: string) => {
    const original = (target[method] as (...a: unknown[]) => Promise<unknown>).bind(target);
    (target as Record<string, unknown>)[method] = async (...args: unknown[]) => {
      const t0 = performance.now();
      try {
        return await original(...args);
      } finally {
        busy.set(label, (busy.get(label) ?? 0) + performance.now() - t0);
      }
    };
  };
  timed(journal, 'listUnfinished', 'journal read (pages)');
  timed(journal, 'terminalAmong', 'journal terminalAmong');
  timed(journal, 'setLoaded', 'journal setLoaded');
  timed(journal, 'write', 'journal write (writer batches)');
  timed(journal, 'appendHistory', 'journal appendHistory (restore entries)');
  timed(redis, 'pushMany', 'Redis push');
  const redis0 = await redisCpuMs(admin);
  const pg0 = sql.dialect === 'postgres' ? await backendCpuMs(appName) : new Map<number, number>();
  const cpu0 = process.cpuUsage();
  const stop = await startCpuProfile();
  t = performance.now();
  const summary = await store.restore({ expire: true }, store.clock.now());
  const wallS = (performance.now() - t) / 1000;
  await stop(`.tmp/restore-${dialect}.cpuprofile`);
  const cpu = process.cpuUsage(cpu0);
  console.log(
    `restore ${summary.restored}: ${wallS.toFixed(1)} s, ${(count / wallS).toFixed(0)} jobs/s, ` +
      `client CPU ${((cpu.user + cpu.system) / count).toFixed(1)} µs/job`,
  );
  const redisUs = ((await redisCpuMs(admin)) - redis0) * 1000;
  console.log(`  Redis server CPU ${(redisUs / count).toFixed(1)} µs/job`);
  if (sql.dialect === 'postgres') {
    let ms = 0;
    for (const [pid, after] of await backendCpuMs(appName)) ms += after - (pg0.get(pid) ?? 0);
    console.log(`  PostgreSQL backends' CPU ${((ms * 1000) / count).toFixed(1)} µs/job`);
  }
  for (const [label, ms] of busy) console.log(`  ${label}: ${(ms / 1000).toFixed(1)} s busy`);
} finally {
  await store.close();
  await admin.quit();
  await dropSqlDatabase(sql, name);
  await cleanup();
}
