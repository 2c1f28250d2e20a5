// The durable shapes' part of BENCHMARKS.md: the journaled push next to plain Redis (from the enqueue
// scenario of the same run) and the restore of the journal into an empty Redis.
import { fmt } from './lib.js';
import { cell, REFERENCE, type Results } from './results-table.js';

const JOURNALED = ['delayq · Redis + PostgreSQL', 'delayq · Redis + MariaDB'];

export function durableSection(results: Results, restoreJobs: number): string {
  const push = JOURNALED.filter((s) => results.values('enqueue', s, 'rate').length).map((system) => {
    // this ÷ Redis alone, run by run (issue 19's goal: at least 0.5).
    const ratios = results.ratio('enqueue', REFERENCE, 'rate', system);
    return `| ${system} | ${cell(results.values('enqueue', system, 'rate'))} | ${cell(ratios, 2, '×')} |`;
  });
  const restore = results.systems('restore').map((system) => {
    const v = (metric: string) => results.values('restore', system, metric);
    return `| ${system} | ${cell(v('restoreS'), 1, 's')} | ${cell(v('jobsPerS'))} | ${cell(v('fillS'), 1, 's')} |`;
  });
  return `## The durable shapes: journaled push and restore

Journaled push, 100 in flight (the enqueue scenario above): each job is committed to the SQL journal (group
commit, one round trip per batch) before it enters Redis. Goal (issue 19): at least 0.5 × Redis alone, same run.

${push.length ? `| system | jobs/s | ÷ delayq · Redis (same run) |\n| --- | --- | --- |\n${push.join('\n')}` : '_not run_'}

Restore of ${fmt(restoreJobs)} unfinished journaled jobs into an empty Redis (\`--only=restore\`; goal: ≤ 60 s):
pages read by keyset on the id while earlier pages are pushed, pushes pipelined.

${restore.length ? `| system | restore | jobs/s | journal fill (written directly, not timed) |\n| --- | --- | --- | --- |\n${restore.join('\n')}` : '_not run_'}
`;
}
