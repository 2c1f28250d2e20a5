/** The operator's commands over the API calls the SDK does not wrap: delivery bindings (sinks), the journal, batch push. */
import { readFileSync } from 'node:fs';
import type { Command } from '@commander-js/extra-typings';
import { DelayqError } from '../../core/errors.js';
import type { PushRequest, PushResponse } from '../../protocol/schemas.js';
import { emit, fields, iso, table } from '../output.js';
import { rawRequest } from '../raw-request.js';
import { clientOf, jsonOf, type GlobalFlags } from './client-commands.js';

interface SinkBinding {
  topic: string;
  sink: { type: string } & Record<string, unknown>;
  updatedAt: number;
}

const bindingRow = (b: SinkBinding) => ({ topic: b.topic, type: b.sink.type, updatedAt: iso(b.updatedAt) });

/** A JSON argument, or a 400-like error naming what was given (exit code 3, as the server's refusals). */
function jsonArgument(what: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new DelayqError('E_VALIDATION', `${what}: not JSON (${(err as Error).message})`, { field: what });
  }
}

export function registerOperatorCommands(program: Command<[], GlobalFlags>): void {
  const call = <T>(command: { optsWithGlobals(): GlobalFlags }, method: 'GET' | 'PUT' | 'POST' | 'DELETE') => {
    const { url, token } = command.optsWithGlobals();
    return (path: string, body?: unknown) => rawRequest<T>(url, token, method, path, body);
  };
  const topicPath = (topic: string) => `/v1/topics/${encodeURIComponent(topic)}/sink`;

  const sink = program.command('sink').description('delivery bindings: deliver a topic to a sink (docs/sinks.md)');
  sink
    .command('list')
    .description('every delivery binding (secrets masked)')
    .action(async (_flags, command) => {
      const answer = await call<{ bindings: SinkBinding[] }>(command, 'GET')('/v1/sinks');
      emit(jsonOf(command), answer, (a) => table(a.bindings.map(bindingRow), ['topic', 'type', 'updatedAt']));
    });
  sink
    .command('get')
    .description("a topic's delivery binding")
    .argument('<topic>')
    .action(async (topic, _flags, command) => {
      const binding = await call<SinkBinding>(command, 'GET')(topicPath(topic));
      emit(jsonOf(command), binding, (b) => fields({ ...bindingRow(b), sink: b.sink }));
    });
  sink
    .command('set')
    .description('bind a topic to a sink, e.g. \'{"type":"webhook","url":"https://…"}\'')
    .argument('<topic>')
    .argument('<sink>', 'the sink config as JSON')
    .action(async (topic, config, _flags, command) => {
      const binding = await call<SinkBinding>(command, 'PUT')(topicPath(topic), jsonArgument('sink', config));
      emit(jsonOf(command), binding, (b) => `bound ${b.topic} to ${b.sink.type}\n`);
    });
  sink
    .command('delete')
    .description('make a push topic a pull topic again')
    .argument('<topic>')
    .action(async (topic, _flags, command) => {
      const answer = await call<{ deleted: boolean }>(command, 'DELETE')(topicPath(topic));
      emit(jsonOf(command), answer, (a) =>
        a.deleted ? `deleted the binding of ${topic}\n` : `${topic} had no binding\n`,
      );
    });

  program
    .command('journal')
    .description('with a SQL journal: its status (restore mode, the store seen lost or not, the last restore)')
    .action(async (_flags, command) => {
      const status = await call<Record<string, unknown>>(command, 'GET')('/v1/journal');
      emit(jsonOf(command), status, fields);
    });

  program
    .command('clear-all')
    .description('with a SQL journal: cancel every unfinished job (audited; needs --confirm clear-all)')
    .requiredOption('--confirm <text>', 'must be "clear-all"')
    .option('--reason <text>', 'recorded in each job history')
    .action(async (flags, command) => {
      const body: { confirm: string; reason?: string } = { confirm: flags.confirm };
      if (flags.reason !== undefined) body.reason = flags.reason;
      const summary = await call<{ cancelled: number }>(command, 'POST')('/v1/clear-all', body);
      emit(jsonOf(command), summary, (s) => `cancelled: ${s.cancelled}\n`);
    });

  program
    .command('push-batch')
    .description('push the jobs of a JSON array (a file, or - for stdin), all or none')
    .argument('<file>', 'JSON array of push requests, as POST /v1/jobs takes them')
    .action(async (file, _flags, command) => {
      const jobs = jsonArgument('file', readFileSync(file === '-' ? 0 : file, 'utf8'));
      if (!Array.isArray(jobs)) throw new DelayqError('E_VALIDATION', 'file: must hold a JSON array of jobs');
      const results: PushResponse[] = await clientOf(command).pushBatch(jobs as PushRequest[]);
      emit(jsonOf(command), { results }, (a) =>
        table(
          a.results.map((r) => ({ id: r.job.id, topic: r.job.topic, state: r.job.state, created: r.created })),
          ['id', 'topic', 'state', 'created'],
        ),
      );
    });
}
