/** `delayq schedule …`: schedules over the SDK (docs/schedules.md); tables, or the API's JSON with --json. */
import { Option, type Command } from '@commander-js/extra-typings';
import type { PutScheduleRequest, Schedule, ScheduleFiresResponse } from '../../protocol/schedule-schemas.js';
import { emit, fields, iso, table } from '../output.js';
import { asInt, clientOf, jsonOf, parseBody, type GlobalFlags } from './client-commands.js';

const SCHEDULE_COLUMNS = ['name', 'topic', 'ticks', 'timeZone', 'paused', 'fired', 'nextFireAt', 'lastJobId'];
const scheduleRow = (s: Schedule) => ({
  name: s.name,
  topic: s.topic,
  ticks: s.cron !== null ? `cron ${s.cron}` : `every ${s.everyMs} ms`,
  timeZone: s.timeZone,
  paused: s.paused,
  fired: s.fired,
  nextFireAt: iso(s.nextFireAt),
  lastJobId: s.lastJobId,
});
const scheduleText = (answer: { schedule: Schedule }) => fields(scheduleRow(answer.schedule));
const firesText = (f: ScheduleFiresResponse): string =>
  `next fires:\n${table(
    f.next.map((at) => ({ at: iso(at) })),
    ['at'],
  )}last fires:\n${table(
    f.last.map((l) => ({ tickAt: iso(l.tickAt), jobId: l.jobId, state: l.job.state, attempts: l.job.attempts })),
    ['tickAt', 'jobId', 'state', 'attempts'],
  )}`;

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
      emit(jsonOf(command), { schedule: await clientOf(command).putSchedule(name, request) }, scheduleText);
    });

  schedule
    .command('list')
    .description('every schedule')
    .action(async (_flags, command) =>
      emit(jsonOf(command), { schedules: await clientOf(command).listSchedules() }, (a) =>
        table(a.schedules.map(scheduleRow), SCHEDULE_COLUMNS),
      ),
    );
  schedule
    .command('get')
    .description('a schedule, its next fire and latest job')
    .argument('<name>')
    .action(async (name, _flags, command) =>
      emit(jsonOf(command), { schedule: await clientOf(command).getSchedule(name) }, scheduleText),
    );
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
      emit(jsonOf(command), await clientOf(command).scheduleFires(name, counts), firesText);
    });
  schedule
    .command('pause')
    .argument('<name>')
    .action(async (name, _flags, command) =>
      emit(jsonOf(command), { schedule: await clientOf(command).pauseSchedule(name) }, scheduleText),
    );
  schedule
    .command('resume')
    .argument('<name>')
    .action(async (name, _flags, command) =>
      emit(jsonOf(command), { schedule: await clientOf(command).resumeSchedule(name) }, scheduleText),
    );
  schedule
    .command('delete')
    .argument('<name>')
    .action(async (name, _flags, command) => {
      await clientOf(command).deleteSchedule(name);
      emit(jsonOf(command), { deleted: true }, () => `deleted ${name}\n`);
    });
}
