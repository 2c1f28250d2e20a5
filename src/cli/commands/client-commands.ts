/** The CLI's client commands: each is one SDK call against a running server; a table, or JSON with --json. */
import { InvalidArgumentError, Option, type Command } from '@commander-js/extra-typings';
import { DelayqClient } from '../../client/client.js';
import { parseDurationMs } from '../../core/duration.js';
import type { PushRequest } from '../../protocol/schemas.js';
import { emit, fields, iso, JOB_COLUMNS, jobRow, table } from '../output.js';

export type GlobalFlags = { url: string; token?: string | undefined; json?: boolean | undefined };

export function clientOf(command: { optsWithGlobals(): GlobalFlags }): DelayqClient {
  const { url, token } = command.optsWithGlobals();
  // A command sends a request or a few: node:http, which has nothing to load, starts quickest.
  return new DelayqClient({ url, token, http: 'node' });
}

export const jsonOf = (command: { optsWithGlobals(): GlobalFlags }): boolean => command.optsWithGlobals().json === true;

type WireJobLike = Parameters<typeof jobRow>[0] & Record<string, unknown>;
/** One job as `key value` lines (with its body), or several as a table. */
export const jobText = (job: WireJobLike): string =>
  fields({ ...jobRow(job), lastError: job['lastError'], body: job['body'] });
export const jobsText = (jobs: readonly WireJobLike[]): string => table(jobs.map(jobRow), JOB_COLUMNS);

/** A body given on the command line: JSON when it parses, else the text itself. */
export function parseBody(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * A duration flag of a field the API takes as ms only (`ttrMs` of reserve and touch, `retryDelayMs` of
 * fail): plain digits are ms, else "30s", "4m", "2h" read here. A bad one is E_VALIDATION naming the
 * field (exit code 3), as the server's refusal of a bad `--delay` is.
 */
export const msOf = (value: string, field: string): number => parseDurationMs(value, field);

/** An integer option; anything else is a usage error (exit code 2) naming the option. */
export const asInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new InvalidArgumentError(`"${value}" is not an integer`);
  return n;
};

/** What `push` prints for each outcome of the push. */
const PUSH_WORDS = {
  created: 'pushed',
  kept: 'exists',
  replaced: 'replaced',
  extended: 'extended',
  duplicate: 'duplicate of',
} as const;

export function registerClientCommands(program: Command<[], GlobalFlags>): void {
  program
    .command('push')
    .description('push a job')
    .argument('<topic>', 'topic name')
    .argument('[body]', 'job body: JSON, or plain text')
    .option('--id <id>', 'your job id (idempotent push)')
    .option('--delay <duration>', 'delay: ms or "30s", "4m", "1h"')
    .option('--run-at <time>', 'absolute due time: epoch ms, ISO-8601 with offset, or local time with --time-zone')
    .option('--time-zone <zone>', 'IANA zone of a --run-at written without offset, e.g. Asia/Shanghai')
    .option('--ttr <duration>', 'time to run once reserved')
    .option('--priority <n>', 'lower runs first among jobs due together', asInt)
    .option('--tag <tag>')
    .option('--biz-key <key>')
    .option('--retry <schedule>', 'retry schedule, e.g. "4m,10m,1h"')
    .addOption(
      new Option(
        '--on-exists <rule>',
        'a waiting job with this id: keep it, replace it, or extend its due time',
      ).choices(['keep', 'replace', 'extend'] as const),
    )
    .option('--max-wait <duration>', 'with --on-exists extend: never later than this after the first push')
    .option('--spread <duration>', 'spread jobs due at one instant over this window (an offset per id)')
    .option('--dedup-key <key>', "within --dedup-window of the topic's first push with this key, answer that job")
    .option('--dedup-window <duration>', 'how long the first push with --dedup-key holds it (1ms to 30d)')
    .option('--group <group>', "the job's group (a tenant, a merchant), bounded by its topic's groupConcurrency")
    .action(async (topic, body, flags, command) => {
      const job: PushRequest = { topic };
      const parsed = parseBody(body);
      if (parsed !== undefined) job.body = parsed;
      if (flags.id !== undefined) job.id = flags.id;
      if (flags.delay !== undefined) job.delayMs = /^\d+$/.test(flags.delay) ? Number(flags.delay) : flags.delay;
      if (flags.runAt !== undefined) job.runAt = /^\d+$/.test(flags.runAt) ? Number(flags.runAt) : flags.runAt;
      if (flags.timeZone !== undefined) job.timeZone = flags.timeZone;
      if (flags.ttr !== undefined) job.ttrMs = /^\d+$/.test(flags.ttr) ? Number(flags.ttr) : flags.ttr;
      if (flags.priority !== undefined) job.priority = flags.priority;
      if (flags.tag !== undefined) job.tag = flags.tag;
      if (flags.bizKey !== undefined) job.bizKey = flags.bizKey;
      if (flags.retry !== undefined) job.retry = flags.retry;
      if (flags.onExists !== undefined) job.onExists = flags.onExists;
      if (flags.maxWait !== undefined) job.maxWaitMs = msOf(flags.maxWait, '--max-wait');
      if (flags.spread !== undefined) job.spreadMs = msOf(flags.spread, '--spread');
      if (flags.dedupKey !== undefined) job.dedupKey = flags.dedupKey;
      if (flags.dedupWindow !== undefined)
        job.dedupWindowMs = /^\d+$/.test(flags.dedupWindow) ? Number(flags.dedupWindow) : flags.dedupWindow;
      if (flags.group !== undefined) job.group = flags.group;
      const pushed = await clientOf(command).push(job);
      emit(
        jsonOf(command),
        pushed,
        (p) => `${PUSH_WORDS[p.outcome]} ${p.job.id} (${p.job.state}, due ${iso(p.job.runAt)})\n`,
      );
    });

  program
    .command('get')
    .description('show a job')
    .argument('<id>')
    .option('--history', 'include every transition')
    .action(async (id, flags, command) => {
      const client = clientOf(command);
      const found = flags.history ? await client.getWithHistory(id) : { job: await client.get(id) };
      emit(jsonOf(command), found, (f) => {
        const history =
          'history' in f
            ? table(
                f.history.map((h) => ({
                  at: iso(h.at),
                  event: h.event,
                  state: h.state,
                  attempt: h.attempt,
                  node: h.node,
                  reason: h.reason,
                })),
                ['at', 'event', 'state', 'attempt', 'node', 'reason'],
              )
            : '';
        return jobText(f.job) + (history ? `\n${history}` : '');
      });
    });

  program
    .command('cancel')
    .description('cancel a delayed, ready or reserved job')
    .argument('<id>')
    .option('--reason <text>')
    .action(async (id, flags, command) => {
      const cancelled = await clientOf(command).cancel(id, flags.reason);
      emit(jsonOf(command), cancelled, () => `cancelled ${id}\n`);
    });

  program
    .command('reserve')
    .description('reserve ready jobs (prints their tokens)')
    .argument('<topics...>')
    .option('--count <n>', 'jobs wanted (1–100)', asInt, 1)
    .option('--wait <ms>', 'long-poll: wait this long for a job', asInt, 0)
    .option('--ttr <duration>', 'TTR for these reservations: ms or "30s", "2h"')
    .action(async (topics, flags, command) => {
      const reservations = await clientOf(command).reserve({
        topics,
        count: flags.count,
        waitMs: flags.wait,
        ...(flags.ttr === undefined ? {} : { ttrMs: msOf(flags.ttr, 'ttrMs') }),
      });
      emit(jsonOf(command), { reservations }, (r) =>
        table(
          r.reservations.map((x) => ({ ...jobRow(x.job), token: x.token })),
          [...JOB_COLUMNS, 'token'],
        ),
      );
    });

  program
    .command('finish')
    .description('finish a reserved job')
    .argument('<id>')
    .argument('<token>', 'the token printed by reserve')
    .option('--result <json>', 'a JSON value kept with the job (docs/job-api.md)')
    .action(async (id, token, flags, command) => {
      const options = flags.result === undefined ? {} : { result: parseBody(flags.result) };
      const job = await clientOf(command).finish(id, token, options);
      emit(jsonOf(command), { job }, (r) => `finished ${r.job.id}\n`);
    });
}
