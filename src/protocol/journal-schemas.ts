/** The journal's operator actions on the wire (HTTP /v1/restore, /v1/clear-all, /v1/journal; gRPC ClearAll): docs/journal.md. */
import Type from 'typebox';

export const RestoreRequest = Type.Object(
  {
    /** The seeds' `expire`: true (default) re-delivers jobs whose due time passed; false marks them expired. */
    expire: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);
export const RestoreSummarySchema = Type.Object(
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
export const ClearAllRequest = Type.Object(
  {
    /** Must be the text "clear-all": this cancels every unfinished job. */
    confirm: Type.String({ maxLength: 32 }),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);
export const ClearAllSummarySchema = Type.Object({
  cancelled: Type.Integer(),
  startedAt: Type.Integer(),
  durationMs: Type.Integer(),
});
export const JournalStatusSchema = Type.Object(
  {
    available: Type.Boolean({
      description: 'false: this server runs without a SQL journal (journal.kind unset), and nothing else is said',
    }),
  },
  {
    additionalProperties: true,
    description: 'with a journal: restoreMode, inner (ok | restoring | lost), lastRestore… (docs/journal.md)',
  },
);
