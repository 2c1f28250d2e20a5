/** `delayq schedule …`: schedules over the SDK (docs/schedules.md), printing JSON. */
import { Option, type Command } from '@commander-js/extra-typings';
import type { PutScheduleRequest } from '../../protocol/schedule-schemas.js';
import { clientOf, parseBody, print, type GlobalFlags } from './client-commands.js';

const asInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new Error(`"${value}" is not an integer`);
  return n;
};
const timeOf = (value: string): number | string => (/^\d+$/.test(value) ? Number(value) : value);

export function registerScheduleCommands(program: Command<[], GlobalFlags>): void {
  const schedule = program.command('schedule').description('periodic jobs: create, show, pause, resume, delete');

  schedule
    .command('put')
    .description('create or replace a schedule (give --cron or --every)')
    .argument('<name>', 'schedule name (letters, digits, . _ -)')
    .requiredOption('--topic <topic>', 'topic of the jobs it pushes')
    .option('--cron <pattern>', 'cron pattern, seconds first with 6 fields, e.g. "0 30 2 * * *"')
    .option('--every <duration>', 'fixed interval: ms or "30s", "5m", "1h"')
    .option('--time-zone <zone>', 'IANA zone of the cron pattern and of local --start/--end (default UTC)')
    .option('--start <time>', 'first tick not before: epoch ms or ISO-8601')
    .option('--end <time>', 'no tick after: epoch ms or ISO-8601')
    .option('--max-fires <n>', 'stop after this many fires', asInt)
    .addOption(
      new Option('--missed <policy>', 'ticks missed during a downtime').choices(['skip', 'once', 'each'] as const),
    )
    .option('--catch-up-max <n>', 'with --missed each: at most this many', asInt)
    .option('--body <json>', 'job body: JSON, or plain text')
    .option('--priority <n>', 'job priority', asInt)
    .option('--ttr <duration>', 'job time to run')
    .option('--retry <schedule>', 'job retry schedule, e.g. "4m,10m,1h"')
    .action(async (name, flags, command) => {
      const request: PutScheduleRequest = { topic: flags.topic, job: {} };
      if (flags.cron !== undefined) request.cron = flags.cron;
      if (flags.every !== undefined) request.everyMs = timeOf(flags.every);
      if (flags.timeZone !== undefined) request.timeZone = flags.timeZone;
      if (flags.start !== undefined) request.startAt = timeOf(flags.start);
      if (flags.end !== undefined) request.endAt = timeOf(flags.end);
      if (flags.maxFires !== undefined) request.maxFires = flags.maxFires;
      if (flags.missed !== undefined) request.missed = flags.missed;
      if (flags.catchUpMax !== undefined) request.catchUpMax = flags.catchUpMax;
      const body = parseBody(flags.body);
      if (body !== undefined) request.job!.body = body;
      if (flags.priority !== undefined) request.job!.priority = flags.priority;
      if (flags.ttr !== undefined) request.job!.ttrMs = timeOf(flags.ttr);
      if (flags.retry !== undefined) request.job!.retry = flags.retry;
      print({ schedule: await clientOf(command).putSchedule(name, request) });
    });

  schedule
    .command('list')
    .description('every schedule')
    .action(async (_flags, command) => print({ schedules: await clientOf(command).listSchedules() }));
  schedule
    .command('get')
    .description('a schedule, its next fire and latest job')
    .argument('<name>')
    .action(async (name, _flags, command) => print({ schedule: await clientOf(command).getSchedule(name) }));
  schedule
    .command('fires')
    .description('its coming ticks and its latest fires with their jobs')
    .argument('<name>')
    .option('--next <n>', 'coming ticks to list (default 5)', asInt)
    .option('--last <n>', 'latest fires to list (default 5)', asInt)
    .action(async (name, flags, command) => {
      const counts: { next?: number; last?: number } = {};
      if (flags.next !== undefined) counts.next = flags.next;
      if (flags.last !== undefined) counts.last = flags.last;
      print(await clientOf(command).scheduleFires(name, counts));
    });
  schedule
    .command('pause')
    .argument('<name>')
    .action(async (name, _flags, command) => print({ schedule: await clientOf(command).pauseSchedule(name) }));
  schedule
    .command('resume')
    .argument('<name>')
    .action(async (name, _flags, command) => print({ schedule: await clientOf(command).resumeSchedule(name) }));
  schedule
    .command('delete')
    .argument('<name>')
    .action(async (name, _flags, command) => {
      await clientOf(command).deleteSchedule(name);
      print({ deleted: true });
    });
}
