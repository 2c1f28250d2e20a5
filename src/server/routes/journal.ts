import type { DelayqService } from '../../service/service.js';
import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import { JobIdParams } from '../../protocol/schemas.js';
import {
  ClearAllRequest,
  ClearAllSummarySchema,
  JournalStatusSchema,
  RestoreRequest,
  RestoreSummarySchema,
} from '../../protocol/journal-schemas.js';
import type { DelayqApp } from '../route-context.js';
import { authorizeAllTopics } from '../auth.js';
import { errorResponses } from '../route-helpers.js';
import type { RestoreHandler } from '../route-context.js';

/**
 * The journal's operator actions (docs/journal.md): restore after a store loss (all, or one job), clear-all
 * (guarded by a confirmation text, audited), and the journal's status. Without a journal the status answers
 * `{"available": false}` and the actions 409 E_CONFLICT. Tokens limited to some topics may not call them
 * (they span every topic).
 */
export function registerJournalRoutes(app: DelayqApp, service: DelayqService): void {
  // On these routes only: a hook on the app would run on every request of every route.
  const spansAllTopics = async (request: FastifyRequest): Promise<void> => authorizeAllTopics(request);
  app.get(
    '/v1/journal',
    {
      preHandler: spansAllTopics,
      schema: {
        tags: ['journal'],
        summary: 'Journal status (`available: false` when the server runs without a SQL journal)',
        response: { 200: JournalStatusSchema, ...errorResponses },
      },
    },
    async () => service.journal.status(),
  );
  app.post(
    '/v1/restore',
    {
      preHandler: spansAllTopics,
      schema: {
        tags: ['journal'],
        summary: 'Restore every unfinished job from the journal (idempotent)',
        body: RestoreRequest,
        response: { 200: RestoreSummarySchema, ...errorResponses },
      },
    },
    async (request) => service.journal.restore({ expire: request.body.expire ?? true }),
  );
  app.post(
    '/v1/jobs/:id/restore',
    {
      preHandler: spansAllTopics,
      schema: {
        tags: ['journal'],
        summary: 'Restore one job from the journal',
        params: JobIdParams,
        body: Type.Optional(RestoreRequest),
        response: { 200: RestoreSummarySchema, ...errorResponses },
      },
    },
    async (request) => service.journal.restoreJob(request.params.id, { expire: request.body?.expire ?? true }),
  );
  app.post(
    '/v1/clear-all',
    {
      preHandler: spansAllTopics,
      schema: {
        tags: ['journal'],
        summary: 'Cancel every unfinished job (confirm: "clear-all"; audited)',
        body: ClearAllRequest,
        response: { 200: ClearAllSummarySchema, ...errorResponses },
      },
    },
    async (request) =>
      service.journal.clearAll({
        confirm: request.body.confirm,
        reason: request.body.reason,
        actor: request.principal?.id ?? 'anonymous',
      }),
  );
}

/** The mykit-delay endpoints (/reStore, /reStoreJob, /clearAll) over the same operations, answering text. */
export function journalRestoreHandler(service: DelayqService): RestoreHandler {
  const text = (s: {
    scanned: number;
    restored: number;
    alreadyPresent: number;
    skippedExpired: number;
    leftInJournal: number;
    durationMs: number;
  }) =>
    `restored ${s.restored} of ${s.scanned} unfinished jobs (${s.alreadyPresent} already present, ` +
    `${s.skippedExpired} past due skipped, ${s.leftInJournal} left in the journal) in ${s.durationMs} ms`;
  return {
    restore: async (expire) => text(await service.journal.restore({ expire })),
    restoreJob: async (id) => text(await service.journal.restoreJob(id, { expire: true })),
    clearAll: async (confirm, actor) => {
      const summary = await service.journal.clearAll({ confirm: confirm ?? '', actor });
      return `cancelled ${summary.cancelled} unfinished jobs in ${summary.durationMs} ms`;
    },
  };
}
