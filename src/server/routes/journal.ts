import Type from 'typebox';
import type { DelayqService } from '../../service/service.js';
import { JobIdParams } from '../../protocol/schemas.js';
import type { DelayqApp } from '../route-context.js';
import { authorizeAllTopics } from '../auth.js';
import { errorResponses } from '../route-helpers.js';
import type { RestoreHandler } from '../route-context.js';

const RestoreBody = Type.Object(
  {
    /** The seeds' `expire`: true (default) re-delivers jobs whose due time passed; false marks them expired. */
    expire: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);
const RestoreSummarySchema = Type.Object(
  {
    scanned: Type.Integer(),
    restored: Type.Integer(),
    alreadyPresent: Type.Integer(),
    skippedExpired: Type.Integer(),
    leftInJournal: Type.Integer(),
    startedAt: Type.Integer(),
    durationMs: Type.Integer(),
  },
  { additionalProperties: true },
);
export const ClearAllBody = Type.Object(
  {
    /** Must be the text "clear-all": this cancels every unfinished job. */
    confirm: Type.String({ maxLength: 32 }),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);
const ClearAllSummarySchema = Type.Object({
  cancelled: Type.Integer(),
  startedAt: Type.Integer(),
  durationMs: Type.Integer(),
});
const JournalStatusSchema = Type.Object(
  {},
  { additionalProperties: true, description: 'restoreMode, inner (ok | restoring | lost), lastRestore…' },
);

/**
 * The journal's operator actions (docs/journal.md): restore after a store loss (all, or one job), clear-all
 * (guarded by a confirmation text, audited), and the journal's status. Without a journal: 409 E_CONFLICT.
 * Tokens limited to some topics may not call them (they span every topic).
 */
export function registerJournalRoutes(app: DelayqApp, service: DelayqService): void {
  app.addHook('preHandler', async (request) => {
    if (/^\/v1\/(restore|clear-all|journal)|^\/v1\/jobs\/:id\/restore/.test(request.routeOptions.url ?? ''))
      authorizeAllTopics(request);
  });
  app.get(
    '/v1/journal',
    {
      schema: {
        tags: ['journal'],
        summary: 'Journal status',
        response: { 200: JournalStatusSchema, ...errorResponses },
      },
    },
    async () => service.journal.status(),
  );
  app.post(
    '/v1/restore',
    {
      schema: {
        tags: ['journal'],
        summary: 'Restore every unfinished job from the journal (idempotent)',
        body: RestoreBody,
        response: { 200: RestoreSummarySchema, ...errorResponses },
      },
    },
    async (request) => service.journal.restore({ expire: request.body.expire ?? true }),
  );
  app.post(
    '/v1/jobs/:id/restore',
    {
      schema: {
        tags: ['journal'],
        summary: 'Restore one job from the journal',
        params: JobIdParams,
        body: Type.Optional(RestoreBody),
        response: { 200: RestoreSummarySchema, ...errorResponses },
      },
    },
    async (request) => service.journal.restoreJob(request.params.id, { expire: request.body?.expire ?? true }),
  );
  app.post(
    '/v1/clear-all',
    {
      schema: {
        tags: ['journal'],
        summary: 'Cancel every unfinished job (confirm: "clear-all"; audited)',
        body: ClearAllBody,
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
