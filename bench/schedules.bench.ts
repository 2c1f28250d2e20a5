// `npm run bench:schedules`: the schedule fire-lateness comparison of bench/schedule-fires.ts on its own
// (`npm run bench` runs it too, as its "schedules" scenario). Writes .tmp/schedules-bench.md.
//
//   npm run bench:schedules                       1000 schedules for 20 s each
//   npx tsx bench/schedules.bench.ts --quick      1000 schedules for 8 s each (a loaded machine's smoke run)
//   options: --schedules=N --seconds=S
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { machine } from './lib.js';
import { fireRows, scheduleFires, type FireOutcome } from './schedule-fires.js';
import { cleanup } from './servers.js';

const argv = process.argv.slice(2);
const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const quick = argv.includes('--quick');
const SCHEDULES = Number(option('schedules') ?? 1000);
const SECONDS = Number(option('seconds') ?? (quick ? 8 : 20));

const load = loadavg()[0]!.toFixed(1);
let outcomes: FireOutcome[] = [];
try {
  outcomes = await scheduleFires(SCHEDULES, SECONDS);
} finally {
  await cleanup();
}
const markdown = [
  `# Schedule fire lateness: ${SCHEDULES} schedules every second for ${SECONDS} s${quick ? ' (quick run)' : ''}`,
  '',
  `${machine()}; load average ${load} before the run (a shared machine: treat the numbers as indicative).`,
  '',
  '| system | ticks fired / due | doubled | lateness p50 ms | p99 ms | max ms |',
  '| --- | --- | --- | --- | --- | --- |',
  ...fireRows(outcomes),
  '',
].join('\n');
mkdirSync(new URL('../.tmp/', import.meta.url), { recursive: true });
writeFileSync(new URL('../.tmp/schedules-bench.md', import.meta.url), markdown);
process.stdout.write(markdown);
process.exit(0);
