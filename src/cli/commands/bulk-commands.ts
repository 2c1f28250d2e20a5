/** `delayq bulk`: cancel, reschedule, redrive or delete the jobs a selector picks (docs/job-api.md). */
import { Option, type Command } from '@commander-js/extra-typings';
import { JOB_STATES, type JobState } from '../../core/job.js';
import { emit, fields } from '../output.js';
import { asInt, clientOf, jsonOf, type GlobalFlags } from './client-commands.js';

export function registerBulkCommand(program: Command<[], GlobalFlags>): void {
  program
    .command('bulk')
    .description('cancel, reschedule, redrive or delete the jobs a selector picks, every slice to the end')
    .addOption(
      new Option('--action <action>').choices(['cancel', 'reschedule', 'redrive', 'delete']).makeOptionMandatory(),
    )
    .option('--topic <topic>')
    .option('--biz-key <key>')
    .option('--tag <tag>')
    .addOption(new Option('--state <state>').choices(JOB_STATES))
    .option('--due-from <ms>', 'due time from (epoch ms, inclusive)', asInt)
    .option('--due-to <ms>', 'due time to (epoch ms, exclusive)', asInt)
    .option('--run-at <ms>', 'reschedule: the new due time (epoch ms)', asInt)
    .option('--shift <duration>', 'reschedule: move each due time by ms or "10m"')
    .option('--reason <text>', 'cancel: kept in each job history')
    .option('--limit <n>', 'jobs looked at per call (1–1000)', asInt, 1000)
    .option('--dry-run', 'count only; change nothing')
    .action(async (flags, command) => {
      const client = clientOf(command);
      const selector = {
        ...(flags.topic ? { topic: flags.topic } : {}),
        ...(flags.bizKey ? { bizKey: flags.bizKey } : {}),
        ...(flags.tag ? { tag: flags.tag } : {}),
        ...(flags.state ? { state: flags.state as JobState } : {}),
        ...(flags.dueFrom !== undefined ? { dueFrom: flags.dueFrom } : {}),
        ...(flags.dueTo !== undefined ? { dueTo: flags.dueTo } : {}),
      };
      const shift =
        flags.shift === undefined ? undefined : /^-?\d+$/.test(flags.shift) ? Number(flags.shift) : flags.shift;
      const total = { matched: 0, applied: 0, calls: 0, dryRun: flags.dryRun === true };
      let cursor: string | null = null;
      do {
        const slice = await client.bulk({
          action: flags.action as 'cancel' | 'reschedule' | 'redrive' | 'delete',
          selector,
          limit: flags.limit,
          ...(flags.runAt !== undefined ? { runAt: flags.runAt } : {}),
          ...(shift !== undefined ? { shiftMs: shift } : {}),
          ...(flags.reason !== undefined ? { reason: flags.reason } : {}),
          ...(cursor !== null ? { cursor } : {}),
          ...(flags.dryRun ? { dryRun: true } : {}),
        });
        total.matched += slice.matched;
        total.applied += slice.applied;
        total.calls++;
        cursor = slice.next;
      } while (cursor !== null);
      emit(jsonOf(command), total, fields);
    });
}
