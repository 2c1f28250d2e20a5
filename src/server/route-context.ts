/** What route modules share with the app that registers them: its type, their context, the restore hook. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config.js';
import type { DelayqService } from '../service/service.js';

export type DelayqApp = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** What every route module receives. */
export interface RouteContext {
  service: DelayqService;
  config: Readonly<Config>;
}

/** Restore from the SQL journal; wired by the composition root when a journal is configured. */
export interface RestoreHandler {
  /** Re-schedules every unfinished job of the journal; `expire`: also those whose time has passed. Returns a summary. */
  restore(expire: boolean): Promise<string>;
  restoreJob(id: string): Promise<string>;
  /** Cancels every unfinished job (guarded: `confirm` must be "clear-all"; audited). Returns a summary. */
  clearAll(confirm: string | undefined, actor: string): Promise<string>;
}
