// Where a journal restore's time goes: fills a fresh journal (PostgreSQL or MariaDB) with N jobs, empties a
// Redis of its own, then times the restore with a CPU profile of this process over the restore only, and the
// journal's read alone (the keyset pages, no writes) for comparison.
// Usage: npx tsx bench/probes/restore-profile.ts postgres|mysql [N=200000] [REDIS_PORT]
import { Redis } from 'ioredis';
import { JournaledStore } from '../../src/journal/journaled-store.js';
import { MysqlJournal } from '../../src/journal/mysql/mysql-journal.js';
import { PostgresJournal } from '../../src/journal/postgres/postgres-journal.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { fillJournal } from '../journal-restore.js';
import { cleanup, startRedis } from '../servers.js';
import { dropSqlDatabase, MARIADB, newSqlDatabase, POSTGRES } from '../subjects/sql-databases.js';
import { startCpuProfile } from './cpu-profile.js';

const [dialect = 'postgres', countArg = '200000'] = process.argv.slice(2);
const count = Number(countArg);
const sql = dialect === 'postgres' ? POSTGRES : MARIADB;
const server = await startRedis();
const name = await newSqlDatabase(sql);
const admin = new Redis({ host: '127.0.0.1', port: server.port });
const journal =
  sql.dialect === 'postgres'
    ? new PostgresJournal({ connectionString: sql.url, schema: name })
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
  timed(journal, 'write', 'journal write (history)');
  timed(redis, 'pushMany', 'Redis push');
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
  for (const [label, ms] of busy) console.log(`  ${label}: ${(ms / 1000).toFixed(1)} s busy`);
} finally {
  await store.close();
  await admin.quit();
  await dropSqlDatabase(sql, name);
  await cleanup();
}
