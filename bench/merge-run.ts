// `npm run bench -- --only=S,… --merge`: measures the named scenarios again and puts them into the results file
// of an earlier full run (their values and rounds replaced, every other scenario kept), then renders the page
// from the merged file. For a scenario that failed in the full run, or one added after it: the page then says
// which scenarios were measured apart, when, on which commit and at what load, so it stays one run plus named
// re-measurements, never a silent mix.
import { existsSync } from 'node:fs';
import { readRunRecord, type RunRecord } from './run-record.js';

/** `fresh`'s scenarios put into the record stored at `jsonPath`; `fresh` itself when there is none yet. */
export function mergeIntoRun(jsonPath: string, fresh: RunRecord): RunRecord {
  if (!existsSync(jsonPath)) return fresh;
  const base = readRunRecord(jsonPath);
  const scenarios = fresh.results.scenarios();
  for (const scenario of scenarios) base.results.replaceScenario(scenario, fresh.results);
  const rounds = { ...(base.rounds ?? {}), ...(fresh.rounds ?? {}) };
  const commit = typeof fresh.info.machine === 'string' ? 'an unrecorded commit' : fresh.info.machine.commit;
  const load = fresh.info.loadBefore.map((x) => x.toFixed(2)).join(' / ');
  const note =
    `Measured apart and merged into this run: ${scenarios.join(', ')}, from ${fresh.info.startedAt.slice(0, 16)} ` +
    `to ${fresh.info.finishedAt.slice(11, 16)} UTC on ${commit} (load ${load} before), by \`${fresh.info.command}\`.`;
  return {
    info: {
      ...base.info,
      provenance: [base.info.provenance, note].filter(Boolean).join(' '),
      notes: { ...base.info.notes, ...fresh.info.notes },
      failures: [...base.info.failures, ...fresh.info.failures],
    },
    results: base.results,
    rounds,
  };
}
