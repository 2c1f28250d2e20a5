/** `delayq delayed` and `delayq reserved`: the due-time and reserved listings (docs/job-api.md). */
import type { Command } from '@commander-js/extra-typings';
import { emit, table } from '../output.js';
import { asInt, clientOf, jobsText, jsonOf, type GlobalFlags } from './client-commands.js';

export function registerListingCommands(program: Command<[], GlobalFlags>): void {
  program
    .command('delayed')
    .description('delayed jobs by due time, next to fire first (first page; --cursor for the next)')
    .option('--topic <topic>')
    .option('--from <ms>', 'due from (epoch ms)', asInt)
    .option('--to <ms>', 'due before (epoch ms)', asInt)
    .option('--limit <n>', 'page size (1–1000)', asInt, 100)
    .option('--cursor <cursor>', 'the `next` of the previous page')
    .action(async (flags, command) => {
      const page = await clientOf(command).listDelayed({
        limit: flags.limit,
        ...(flags.topic ? { topic: flags.topic } : {}),
        ...(flags.from !== undefined ? { from: flags.from } : {}),
        ...(flags.to !== undefined ? { to: flags.to } : {}),
        ...(flags.cursor ? { cursor: flags.cursor } : {}),
      });
      emit(jsonOf(command), page, (p) => jobsText(p.jobs) + (p.next ? `next: ${p.next}\n` : ''));
    });

  program
    .command('reserved')
    .description('reserved jobs by TTR deadline, with the node holding each')
    .option('--topic <topic>')
    .option('--limit <n>', 'page size (1–1000)', asInt, 100)
    .option('--cursor <cursor>', 'the `next` of the previous page')
    .action(async (flags, command) => {
      const page = await clientOf(command).listReserved({
        limit: flags.limit,
        ...(flags.topic ? { topic: flags.topic } : {}),
        ...(flags.cursor ? { cursor: flags.cursor } : {}),
      });
      const rows = page.reservations.map((r) => ({
        id: r.job.id,
        topic: r.job.topic,
        deadlineAt: new Date(r.deadlineAt).toISOString(),
        node: r.node ?? '',
      }));
      emit(jsonOf(command), page, () => table(rows, ['id', 'topic', 'deadlineAt', 'node']));
    });
}
