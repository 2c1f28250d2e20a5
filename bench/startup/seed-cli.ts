// Seeds an embedded store's file for ready-time.ts. Usage: npx tsx bench/startup/seed-cli.ts FILE JOBS [--overdue]
// (--overdue: the delayed jobs fell due two days ago, as after a long stop).
import { seedSqliteBacklog } from './seed-sqlite.js';

const [path, jobs, flag] = process.argv.slice(2);
if (!path || !jobs) throw new Error('usage: seed-cli.ts FILE JOBS [--overdue]');
const started = Date.now();
seedSqliteBacklog(path, Number(jobs), flag === '--overdue' ? Date.now() - 3 * 86_400_000 : Date.now());
console.log(`seeded ${jobs} jobs into ${path} in ${Date.now() - started} ms`);
