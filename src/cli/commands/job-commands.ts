/** The CLI verbs on jobs beyond push/get/cancel/reserve/finish: list, dead, redrive, restore, reschedule, fail, touch, release, purge. */
import { Option, type Command } from '@commander-js/extra-typings';
import { JOB_STATES, type JobState } from '../../core/job.js';
import type { ListResponse } from '../../protocol/schemas.js';
import { emit, fields } from '../output.js';
import { rawRequest } from '../raw-request.js';
import { asInt, clientOf, jobsText, jobText, jsonOf, msOf, type GlobalFlags } from './client-commands.js';

/** A duration flag: plain digits are ms, anything else ("30s", "4m") goes to the server as text. */
const duration = (value: string): number | string => (/^\d+$/.test(value) ? Number(value) : value);

export function registerJobCommands(program: Command<[], GlobalFlags>): void {
  program
    .command('list')
    .description('list jobs by topic, state, bizKey or tag (first page; --cursor for the next)')
    .option('--topic <topic>')
    .addOption(new Option('--state <state>').choices(JOB_STATES))
    .option('--biz-key <key>')
    .option('--tag <tag>')
    .option('--limit <n>', 'page size (1–1000)', asInt, 100)
    .option('--cursor <cursor>', 'the `next` of the previous page')
    .action(async (flags, command) => {
      const page = await clientOf(command).list({
        limit: flags.limit,
        ...(flags.topic ? { topic: flags.topic } : {}),
        ...(flags.state ? { state: flags.state as JobState } : {}),
        ...(flags.bizKey ? { bizKey: flags.bizKey } : {}),
        ...(flags.tag ? { tag: flags.tag } : {}),
        ...(flags.cursor ? { cursor: flags.cursor } : {}),
      });
      emit(jsonOf(command), page, (p) => jobsText(p.jobs) + (p.next ? `next page: --cursor ${p.next}\n` : ''));
    });

  program
    .command('dead')
    .description('list the dead jobs of a topic')
    .argument('<topic>')
    .option('--limit <n>', 'page size (1–1000)', asInt, 100)
    .action(async (topic, flags, command) => {
      // A page may hold fewer than asked while `next` is set (docs/protocol.md): read on until it is full.
      const client = clientOf(command);
      const jobs: ListResponse['jobs'] = [];
      let next: string | null = null;
      do {
        const page = await client.listDead(topic, {
          limit: flags.limit - jobs.length,
          ...(next ? { cursor: next } : {}),
        });
        jobs.push(...page.jobs);
        next = page.next;
      } while (next !== null && jobs.length < flags.limit);
      emit(jsonOf(command), { jobs, next }, (p) => jobsText(p.jobs));
    });

  program
    .command('redrive')
    .description('dead → ready: the given job ids, or with --topic the oldest --limit dead jobs of a topic')
    .argument('[ids...]')
    .option('--topic <topic>')
    .option('--limit <n>', 'with --topic: at most this many', asInt, 1000)
    .action(async (ids, flags, command) => {
      const client = clientOf(command);
      const count = flags.topic
        ? await client.redrive({ topic: flags.topic, limit: flags.limit })
        : await client.redrive({ ids });
      emit(jsonOf(command), { count }, (r) => `redriven: ${r.count}\n`);
    });

  program
    .command('restore')
    .description(
      'with a SQL journal: push jobs back into the store from the journal, one by id or all (docs/journal.md)',
    )
    .argument('[id]', 'one job; without it, every unfinished job')
    .option('--no-expire', 'mark jobs whose due time passed as expired instead of delivering them')
    .action(async (id, flags, command) => {
      const { url, token } = command.optsWithGlobals();
      const path = id ? `/v1/jobs/${encodeURIComponent(id)}/restore` : '/v1/restore';
      const summary = await rawRequest<Record<string, unknown>>(url, token, 'POST', path, { expire: flags.expire });
      emit(jsonOf(command), summary, fields);
    });

  program
    .command('reschedule')
    .description('move a delayed or ready job to a new due time')
    .argument('<id>')
    .option('--delay <duration>', 'from now: ms or "30s", "4m", "1h"')
    .option('--run-at <time>', 'epoch ms, ISO-8601 with offset, or local time with --time-zone')
    .option('--time-zone <zone>', 'IANA zone of a --run-at written without offset, e.g. Asia/Shanghai')
    .action(async (id, flags, command) => {
      const job = await clientOf(command).reschedule(id, {
        ...(flags.delay !== undefined ? { delayMs: duration(flags.delay) } : {}),
        ...(flags.runAt !== undefined ? { runAt: /^\d+$/.test(flags.runAt) ? Number(flags.runAt) : flags.runAt } : {}),
        ...(flags.timeZone !== undefined ? { timeZone: flags.timeZone } : {}),
      });
      emit(jsonOf(command), { job }, (r) => jobText(r.job));
    });

  program
    .command('run-now')
    .description('make a delayed job (waiting for its due time or a retry) ready at once')
    .argument('<id>')
    .action(async (id, _flags, command) => {
      const job = await clientOf(command).runNow(id);
      emit(jsonOf(command), { job }, (r) => jobText(r.job));
    });

  program
    .command('fail')
    .description('fail a reserved job: retried after its backoff, or buried when no attempts remain')
    .argument('<id>')
    .argument('<token>', 'the token printed by reserve')
    .option('--error <text>', 'why it failed (kept as lastError)')
    .option('--retry-delay <duration>', 'wait this long before the retry instead of the backoff: ms or "30s", "1h"')
    .option('--bury', 'bury at once, whatever attempts remain')
    .action(async (id, token, flags, command) => {
      const failed = await clientOf(command).fail(id, token, {
        ...(flags.error !== undefined ? { error: flags.error } : {}),
        ...(flags.retryDelay !== undefined ? { retryDelayMs: msOf(flags.retryDelay, 'retryDelayMs') } : {}),
        ...(flags.bury ? { bury: true } : {}),
      });
      emit(
        jsonOf(command),
        failed,
        (r) => `${r.job.state === 'dead' ? 'buried' : 'retry at ' + new Date(r.job.runAt).toISOString()} ${r.job.id}\n`,
      );
    });

  program
    .command('touch')
    .description('extend a reservation (its TTR starts again)')
    .argument('<id>')
    .argument('<token>')
    .option('--ttr <duration>', 'new TTR for this reservation: ms or "30s", "2m"')
    .action(async (id, token, flags, command) => {
      const job = await clientOf(command).touch(
        id,
        token,
        flags.ttr === undefined ? undefined : msOf(flags.ttr, 'ttrMs'),
      );
      emit(
        jsonOf(command),
        { job },
        (r) =>
          `touched ${r.job.id}: deadline ${new Date((r.job as { deadlineAt: number }).deadlineAt).toISOString()}\n`,
      );
    });

  program
    .command('release')
    .description('give a reservation back (the attempt does not count): ready at once, or after --delay')
    .argument('<id>')
    .argument('<token>')
    .option('--delay <duration>', 'ms or "30s"')
    .action(async (id, token, flags, command) => {
      const job = await clientOf(command).release(
        id,
        token,
        flags.delay !== undefined ? { delayMs: duration(flags.delay) } : {},
      );
      emit(jsonOf(command), { job }, (r) => `released ${r.job.id} (${r.job.state})\n`);
    });

  program
    .command('purge')
    .description('delete finished, dead, cancelled and expired jobs that ended before --before')
    .requiredOption('--before <time>', 'epoch ms or ISO-8601')
    .option('--limit <n>', 'at most this many', asInt)
    .action(async (flags, command) => {
      const before = /^\d+$/.test(flags.before) ? Number(flags.before) : Date.parse(flags.before);
      if (Number.isNaN(before))
        command.error(`--before: "${flags.before}" is neither epoch ms nor ISO-8601`, { exitCode: 2 });
      const count = await clientOf(command).purge(before, flags.limit);
      emit(jsonOf(command), { count }, (r) => `purged: ${r.count}\n`);
    });
}
