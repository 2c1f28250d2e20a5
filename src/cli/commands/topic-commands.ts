/** The CLI verbs on topics: stats (with a live --watch view), pause, resume (a topic or a group), paused-groups, due (the due-time histogram). */
import type { Command } from '@commander-js/extra-typings';
import type { WireTopicStats } from '../../protocol/schemas.js';
import { parseMetrics, quantileByTopic } from '../../observe/metrics-text.js';
import { emit, iso, table } from '../output.js';
import { rawRequest } from '../raw-request.js';
import { DEFAULT_DUE_HISTOGRAM } from '../../service/due-histogram-input.js';
import { asInt, clientOf, jsonOf, type GlobalFlags } from './client-commands.js';

const STATES = ['delayed', 'ready', 'reserved', 'finished', 'dead', 'cancelled', 'expired'] as const;

function statsText(topics: readonly WireTopicStats[], p99?: Map<string, number>): string {
  const rows = topics.map((t) => ({
    topic: t.topic,
    ...Object.fromEntries(STATES.map((s) => [s, t.counts[s]])),
    nextDue: iso(t.nextDueAt),
    ...(p99 ? { 'lateness p99': p99.has(t.topic) ? `${(p99.get(t.topic)! * 1000).toFixed(0)} ms` : null } : {}),
    paused: (t as { paused?: boolean }).paused ?? null,
  }));
  return table(rows, ['topic', ...STATES, 'nextDue', ...(p99 ? ['lateness p99'] : []), 'paused']);
}

export function registerTopicCommands(program: Command<[], GlobalFlags>): void {
  program
    .command('stats')
    .description(
      'job counts per topic and state (of one topic when named); --watch redraws them with delivery lateness p99 until Ctrl-C',
    )
    .argument('[topic]', 'only this topic (GET /v1/topics/{topic}/stats)')
    .option('--watch', 'redraw every --interval (needs a token that may read /metrics for the lateness column)')
    .option('--interval <ms>', 'with --watch', asInt, 2000)
    .option('--times <n>', 'with --watch: stop after n redraws (default: until interrupted)', asInt)
    .action(async (topic, flags, command) => {
      const client = clientOf(command);
      const { url, token } = command.optsWithGlobals();
      const read = async (): Promise<WireTopicStats[]> =>
        topic === undefined
          ? client.stats()
          : [await rawRequest<WireTopicStats>(url, token, 'GET', `/v1/topics/${encodeURIComponent(topic)}/stats`)];
      if (!flags.watch) {
        const topics = await read();
        if (topic !== undefined) emit(jsonOf(command), topics[0]!, (t) => statsText([t]));
        else emit(jsonOf(command), { topics }, (r) => statsText(r.topics));
        return;
      }
      for (let drawn = 0; flags.times === undefined || drawn < flags.times; drawn++) {
        if (drawn > 0) await new Promise((resolve) => setTimeout(resolve, flags.interval));
        const topics = await read();
        let p99: Map<string, number> | undefined;
        try {
          p99 = quantileByTopic(
            parseMetrics(await rawRequest<string>(url, token, 'GET', '/metrics')),
            'delayq_delivery_lateness_seconds',
            0.99,
          );
        } catch {
          p99 = undefined; // a topic-limited token may not read /metrics: counts only
        }
        if (jsonOf(command)) {
          process.stdout.write(
            `${JSON.stringify({ at: Date.now(), topics, latenessP99Seconds: p99 ? Object.fromEntries(p99) : null })}\n`,
          );
        } else {
          // Clear the screen only on a terminal, so a redirected watch stays a readable log.
          if (process.stdout.isTTY) process.stdout.write('\x1b[2J\x1b[H');
          process.stdout.write(
            `delayq ${url}  ${new Date().toISOString()}\n\n${statsText(topics, p99 ?? new Map())}\n`,
          );
        }
      }
    });

  program
    .command('pause')
    .description(
      'pause a topic (or one of its groups): reserve and delivery skip its jobs until resumed (or for --delay)',
    )
    .argument('<topic>')
    .option('--group <group>', "pause only this group of the topic: the topic's other jobs go on")
    .option('--delay <duration>', 'resume by itself after this long: ms or "30s", "1h"')
    .action(async (topic, flags, command) => {
      const delay =
        flags.delay === undefined ? {} : { delayMs: /^\d+$/.test(flags.delay) ? Number(flags.delay) : flags.delay };
      const client = clientOf(command);
      const answer =
        flags.group === undefined
          ? await client.pauseTopic(topic, delay)
          : await client.pauseGroup(topic, flags.group, delay);
      emit(
        jsonOf(command),
        answer,
        () => `paused ${topic}${flags.group === undefined ? '' : ` group ${flags.group}`}\n`,
      );
    });

  program
    .command('resume')
    .description('resume a paused topic (or one of its groups)')
    .argument('<topic>')
    .option('--group <group>', 'resume only this group of the topic')
    .action(async (topic, flags, command) => {
      const client = clientOf(command);
      const answer =
        flags.group === undefined ? await client.resumeTopic(topic) : await client.resumeGroup(topic, flags.group);
      emit(
        jsonOf(command),
        answer,
        () => `resumed ${topic}${flags.group === undefined ? '' : ` group ${flags.group}`}\n`,
      );
    });

  program
    .command('paused-groups')
    .description("a topic's paused groups, each with when its pause ends")
    .argument('<topic>')
    .action(async (topic, _flags, command) => {
      const groups = await clientOf(command).pausedGroups(topic);
      emit(jsonOf(command), groups, () =>
        groups.length === 0
          ? `no paused group in ${topic}\n`
          : table(
              groups.map((g) => ({
                group: g.group,
                until: g.pausedUntil === null ? 'resumed by hand' : iso(g.pausedUntil),
              })),
              ['group', 'until'],
            ),
      );
    });

  program
    .command('due')
    .description('the due-time histogram: delayed jobs per bucket (default: the next hour by minute)')
    .option('--topic <topic>', 'one topic (default: all)')
    .option('--from <time>', 'epoch ms or ISO-8601 (default: the start of the current bucket, as the console asks)')
    .option('--span <ms>', "range length, ms (default: the server's, an hour)", asInt)
    .option('--bucket <ms>', "bucket width, ms (default: the server's, a minute)", asInt)
    .action(async (flags, command) => {
      const { url, token } = command.optsWithGlobals();
      // Whole-bucket edges, as the console asks: a Redis store answers those from its due-time counters.
      const bucketMs: number = flags.bucket ?? DEFAULT_DUE_HISTOGRAM.bucketMs;
      const from =
        flags.from === undefined
          ? Math.floor(Date.now() / bucketMs) * bucketMs
          : /^\d+$/.test(flags.from)
            ? Number(flags.from)
            : Date.parse(flags.from);
      if (Number.isNaN(from))
        command.error(`--from: "${flags.from}" is neither epoch ms nor ISO-8601`, { exitCode: 2 });
      const params = new URLSearchParams({
        from: String(from),
        ...(flags.span !== undefined ? { to: String(from + flags.span) } : {}),
        ...(flags.bucket !== undefined ? { bucketMs: String(flags.bucket) } : {}),
        ...(flags.topic ? { topic: flags.topic } : {}),
      });
      const histogram = await rawRequest<{ total: number; buckets: { at: number; count: number }[] }>(
        url,
        token,
        'GET',
        `/v1/stats/due?${params}`,
      );
      emit(jsonOf(command), histogram, (h) => {
        const max = Math.max(1, ...h.buckets.map((b) => b.count));
        const rows = h.buckets.map((b) => ({
          at: iso(b.at),
          count: b.count,
          bar: '#'.repeat(Math.ceil((b.count / max) * 40)) || null,
        }));
        return `${table(rows, ['at', 'count', 'bar'])}total: ${h.total}\n`;
      });
    });
}
