/** The CLI verb on a topic's flow-control settings (docs/flow-control.md): show them, or change some. */
import { InvalidArgumentError } from '@commander-js/extra-typings';
import type { Command } from '@commander-js/extra-typings';
import type { TopicSettingsRequest, TopicSettingsResponse } from '../../protocol/topic-settings-schemas.js';
import { emit } from '../output.js';
import { asInt, clientOf, jsonOf, type GlobalFlags } from './client-commands.js';

/** A number option (the rate may be a fraction: 0.5 is one job every two seconds). */
const asNumber = (value: string): number => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError(`"${value}" is not a number`);
  return n;
};

function settingsText(answer: TopicSettingsResponse): string {
  const rate = answer.rateLimit;
  const groups = answer.groupConcurrency;
  const groupRate = answer.groupRateLimit;
  return (
    `${answer.topic}\n  rate limit: ${rate ? `${rate.perSecond}/s, burst ${rate.burst}` : 'none'}\n` +
    `  group concurrency: ${groups === undefined ? 'none' : `${groups} per group`}\n` +
    `  rate per group: ${groupRate ? `${groupRate.perSecond}/s, burst ${groupRate.burst}, each group` : 'none'}\n`
  );
}

export function registerTopicSettingsCommands(program: Command<[], GlobalFlags>): void {
  program
    .command('settings')
    .description("show a topic's flow-control settings, or change those given (the others are kept)")
    .argument('<topic>')
    .option('--rate <perSecond>', 'dispatch rate limit: jobs handed out per second, over every instance', asNumber)
    .option('--burst <n>', 'with --rate: jobs that may go out back to back (default 1)', asInt)
    .option('--no-rate', 'remove the rate limit')
    .option('--group-concurrency <n>', 'at most n jobs of one group reserved at once, over every instance', asInt)
    .option('--no-group-concurrency', "remove the bound on a group's reserved jobs")
    .option('--group-rate <perSecond>', "each group's own rate limit: its jobs handed out per second", asNumber)
    .option('--group-burst <n>', 'with --group-rate: jobs of one group that may go out back to back (default 1)', asInt)
    .option('--no-group-rate', 'remove the rate limit per group')
    .action(async (topic, flags, command) => {
      const client = clientOf(command);
      const current = await client.getTopicSettings(topic);
      const changeRate = typeof flags.rate === 'number' || flags.rate === false;
      const changeGroups = typeof flags.groupConcurrency === 'number' || flags.groupConcurrency === false;
      const changeGroupRate = typeof flags.groupRate === 'number' || flags.groupRate === false;
      if (flags.burst !== undefined && !changeRate) command.error('--burst: give it with --rate', { exitCode: 2 });
      if (flags.groupBurst !== undefined && !changeGroupRate)
        command.error('--group-burst: give it with --group-rate', { exitCode: 2 });
      if (!changeRate && !changeGroups && !changeGroupRate) {
        emit(jsonOf(command), current, settingsText);
        return;
      }
      const { topic: _topic, ...settings } = current;
      const next: TopicSettingsRequest = { ...settings };
      if (flags.rate === false) delete next.rateLimit;
      else if (changeRate)
        next.rateLimit = {
          perSecond: flags.rate as number,
          ...(flags.burst === undefined ? {} : { burst: flags.burst }),
        };
      if (flags.groupConcurrency === false) delete next.groupConcurrency;
      else if (changeGroups) next.groupConcurrency = flags.groupConcurrency as number;
      if (flags.groupRate === false) delete next.groupRateLimit;
      else if (changeGroupRate)
        next.groupRateLimit = {
          perSecond: flags.groupRate as number,
          ...(flags.groupBurst === undefined ? {} : { burst: flags.groupBurst }),
        };
      emit(jsonOf(command), await client.putTopicSettings(topic, next), settingsText);
    });
}
