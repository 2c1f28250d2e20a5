#!/usr/bin/env node
/**
 * The `delayq` command: `serve` runs the service; the others talk HTTP to a running one (--url).
 * Client commands load only the SDK and the protocol types: the server (Fastify, the stores, gRPC…) is
 * imported when `serve` runs, so a client command costs little more than node's own start
 * (test/e2e/cli-start.test.ts keeps it so; `npm run bench -- --only=cli` times it).
 */
import { Command, Option } from '@commander-js/extra-typings';
import { isDelayqError } from '../core/errors.js';
import { clientSettings } from './client-env.js';
import { registerClientCommands } from './commands/client-commands.js';
import { registerJobCommands } from './commands/job-commands.js';
import { registerBulkCommand } from './commands/bulk-commands.js';
import { registerListingCommands } from './commands/listing-commands.js';
import { registerEventCommands } from './commands/event-commands.js';
import { registerOperatorCommands } from './commands/operator-commands.js';
import { registerTopicCommands } from './commands/topic-commands.js';
import { registerTopicSettingsCommands } from './commands/topic-settings-commands.js';
import { EXIT, exitCodeOf } from './exit-codes.js';
import { registerScheduleCommands } from './commands/schedule-commands.js';
import { closeQuietlyOnBrokenPipe } from './output.js';

closeQuietlyOnBrokenPipe();
const defaults = clientSettings();

const program = new Command()
  .name('delayq')
  .description('A delay queue: push a job now, have it delivered later, at least once.')
  .version('0.1.0')
  .option('--url <url>', 'server for client commands (env DELAYQ_URL)', defaults.url)
  .addOption(
    new Option('--token <token>', 'bearer token for client commands (env DELAYQ_TOKEN)').default(defaults.token),
  )
  .option('--json', "print the server's JSON instead of tables (for scripts)")
  .showHelpAfterError()
  // Usage errors exit with EXIT.usage (2), apart from the server's answers (docs/cli.md).
  .exitOverride((err) => {
    process.exit(err.exitCode === 0 ? 0 : EXIT.usage);
  });

program
  .command('serve')
  .description('run the service (embedded SQLite store unless configured otherwise)')
  .option('--config <file>', 'JSON configuration file')
  .option('--host <host>', 'listen address (DELAYQ_HTTP_HOST)')
  .option('--port <port>', 'listen port, 0 for any free one (DELAYQ_HTTP_PORT)', (v) => Number(v))
  .option('--data <path>', 'SQLite database file (DELAYQ_SQLITE_PATH)')
  .addOption(new Option('--store <kind>', 'store (DELAYQ_STORE_KIND)').choices(['sqlite', 'redis'] as const))
  .option('--redis-url <url>', 'Redis URL (DELAYQ_REDIS_URL)')
  .option('--log-level <level>', 'pino level (DELAYQ_LOG_LEVEL)')
  .option(
    '--beanstalkd-port <port>',
    'also serve the beanstalkd protocol on this port, 0 for any free one (DELAYQ_BEANSTALKD_ENABLED + DELAYQ_BEANSTALKD_PORT)',
    (v) => Number(v),
  )
  .option('--beanstalkd-host <host>', 'beanstalkd listen address (DELAYQ_BEANSTALKD_HOST)')
  .action(async (flags) => {
    const { serve } = await import('./commands/serve.js');
    await serve(flags);
  });

registerClientCommands(program);
registerJobCommands(program);
registerBulkCommand(program);
registerListingCommands(program);
registerEventCommands(program);
registerTopicCommands(program);
registerTopicSettingsCommands(program);
registerScheduleCommands(program);
registerOperatorCommands(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  if (isDelayqError(err)) {
    process.stderr.write(`delayq: ${err.code}: ${err.message}\n`);
  } else {
    process.stderr.write(`delayq: ${err instanceof Error ? err.message : String(err)}\n`);
  }
  process.exitCode = exitCodeOf(err);
});
