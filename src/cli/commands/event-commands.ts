/** `delayq events`: follow job events (docs/events.md) as lines, one per event; --json for NDJSON. */
import type { Command } from '@commander-js/extra-typings';
import { DelayqError } from '../../core/errors.js';
import type { WireJobEvent } from '../../protocol/job-event-schemas.js';
import { iso } from '../output.js';
import { asInt, clientOf, jsonOf, type GlobalFlags } from './client-commands.js';

/** `2026-11-25T08:00:00.000Z  finished  orders  o-1  {"ok":true}`: the result or error last, when there is one. */
function eventLine(e: WireJobEvent): string {
  const extra = e.result !== undefined ? JSON.stringify(e.result) : e.error ? JSON.stringify(e.error) : '';
  return [iso(e.at), e.event, e.topic, e.id, extra].join('  ').trimEnd();
}

export function registerEventCommands(program: Command<[], GlobalFlags>): void {
  program
    .command('events')
    .description("follow a topic's (or one job's) events as they happen: finished, failed, dead, cancelled, expired")
    .option('--topic <topic>', 'the topic to follow')
    .option('--job <id>', 'follow one job instead, until it ends')
    .option('--events <names>', 'only these, comma-separated (e.g. finished,dead)')
    .option('--last-event-id <id>', 'resume after this event')
    .option('--count <n>', 'stop after this many events', asInt)
    .action(async (flags, command) => {
      if ((flags.topic === undefined) === (flags.job === undefined))
        throw new DelayqError('E_VALIDATION', 'give either --topic or --job', { field: 'topic' });
      const client = clientOf(command);
      const controller = new AbortController();
      const stop = (): void => controller.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      const options = {
        signal: controller.signal,
        ...(flags.events ? { events: flags.events.split(',') } : {}),
        ...(flags.lastEventId ? { lastEventId: flags.lastEventId } : {}),
      };
      const json = jsonOf(command);
      let seen = 0;
      try {
        const events =
          flags.job !== undefined
            ? client.jobEvents(flags.job, options)
            : client.events({ ...options, topic: flags.topic! });
        for await (const e of events) {
          process.stdout.write(`${json ? JSON.stringify(e) : eventLine(e)}\n`);
          if (flags.count !== undefined && ++seen >= flags.count) break;
        }
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        await client.close();
      }
    });
}
