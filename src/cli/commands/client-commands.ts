/** The CLI's client commands: each is one SDK call against a running server, printing JSON. */
import type { Command } from '@commander-js/extra-typings';
import { DelayqClient } from '../../client/client.js';
import type { PushRequest } from '../../protocol/schemas.js';

type GlobalFlags = { url: string; token?: string | undefined };

function clientOf(command: { optsWithGlobals(): GlobalFlags }): DelayqClient {
  const { url, token } = command.optsWithGlobals();
  return new DelayqClient({ url, token });
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A body given on the command line: JSON when it parses, else the text itself. */
export function parseBody(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const asInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new Error(`"${value}" is not an integer`);
  return n;
};

export function registerClientCommands(program: Command<[], GlobalFlags>): void {
  program
    .command('push')
    .description('push a job')
    .argument('<topic>', 'topic name')
    .argument('[body]', 'job body: JSON, or plain text')
    .option('--id <id>', 'your job id (idempotent push)')
    .option('--delay <duration>', 'delay: ms or "30s", "4m", "1h"')
    .option('--run-at <time>', 'absolute due time: epoch ms or ISO-8601')
    .option('--ttr <duration>', 'time to run once reserved')
    .option('--priority <n>', 'lower runs first among jobs due together', asInt)
    .option('--tag <tag>')
    .option('--biz-key <key>')
    .option('--retry <schedule>', 'retry schedule, e.g. "4m,10m,1h"')
    .action(async (topic, body, flags, command) => {
      const job: PushRequest = { topic };
      const parsed = parseBody(body);
      if (parsed !== undefined) job.body = parsed;
      if (flags.id !== undefined) job.id = flags.id;
      if (flags.delay !== undefined) job.delayMs = /^\d+$/.test(flags.delay) ? Number(flags.delay) : flags.delay;
      if (flags.runAt !== undefined) job.runAt = /^\d+$/.test(flags.runAt) ? Number(flags.runAt) : flags.runAt;
      if (flags.ttr !== undefined) job.ttrMs = /^\d+$/.test(flags.ttr) ? Number(flags.ttr) : flags.ttr;
      if (flags.priority !== undefined) job.priority = flags.priority;
      if (flags.tag !== undefined) job.tag = flags.tag;
      if (flags.bizKey !== undefined) job.bizKey = flags.bizKey;
      if (flags.retry !== undefined) job.retry = flags.retry;
      print(await clientOf(command).push(job));
    });

  program
    .command('get')
    .description('show a job')
    .argument('<id>')
    .option('--history', 'include every transition')
    .action(async (id, flags, command) => {
      const client = clientOf(command);
      print(flags.history ? await client.getWithHistory(id) : { job: await client.get(id) });
    });

  program
    .command('cancel')
    .description('cancel a delayed, ready or reserved job')
    .argument('<id>')
    .option('--reason <text>')
    .action(async (id, flags, command) => print(await clientOf(command).cancel(id, flags.reason)));

  program
    .command('reserve')
    .description('reserve ready jobs (prints their tokens)')
    .argument('<topics...>')
    .option('--count <n>', 'jobs wanted (1–100)', asInt, 1)
    .option('--wait <ms>', 'long-poll: wait this long for a job', asInt, 0)
    .option('--ttr <ms>', 'TTR for these reservations', asInt)
    .action(async (topics, flags, command) => {
      const reservations = await clientOf(command).reserve({
        topics,
        count: flags.count,
        waitMs: flags.wait,
        ...(flags.ttr === undefined ? {} : { ttrMs: flags.ttr }),
      });
      print({ reservations });
    });

  program
    .command('finish')
    .description('finish a reserved job')
    .argument('<id>')
    .argument('<token>', 'the token printed by reserve')
    .action(async (id, token, _flags, command) => print({ job: await clientOf(command).finish(id, token) }));

  program
    .command('stats')
    .description('job counts per topic and state')
    .action(async (_flags, command) => print({ topics: await clientOf(command).stats() }));
}
