/** How the CLI prints: a table for people by default, the server's JSON with --json (for scripts). */
export type Row = Record<string, unknown>;

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

const cell = (value: unknown): string => {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
};

/** Left-aligned columns, numbers right-aligned, two spaces apart; "(none)" when there are no rows. */
export function table(rows: readonly Row[], columns: readonly string[]): string {
  if (rows.length === 0) return '(none)\n';
  const cells = rows.map((row) => columns.map((c) => cell(row[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)));
  const numeric = columns.map((_, i) => cells.every((r) => /^-?\d+(\.\d+)?$|^-$/.test(r[i]!)));
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => (numeric[i] ? v.padStart(widths[i]!) : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return `${[line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join('\n')}\n`;
}

/** `key  value` lines for one object. */
export function fields(row: Row): string {
  const width = Math.max(...Object.keys(row).map((k) => k.length));
  return Object.entries(row)
    .map(([k, v]) => `${k.padEnd(width)}  ${cell(v)}`)
    .join('\n')
    .concat('\n');
}

export const iso = (at: number | null | undefined): string | null => (at == null ? null : new Date(at).toISOString());

/** Prints `value` as JSON with --json, else the human text `human(value)`. */
export function emit<T>(json: boolean, value: T, human: (value: T) => string): void {
  if (json) printJson(value);
  else process.stdout.write(human(value));
}

export const JOB_COLUMNS = ['id', 'topic', 'state', 'runAt', 'attempts', 'bizKey', 'tag'] as const;

export function jobRow(job: {
  id: string;
  topic: string;
  state: string;
  runAt: number;
  attempts: number;
  bizKey: string | null;
  tag: string | null;
}): Row {
  return {
    id: job.id,
    topic: job.topic,
    state: job.state,
    runAt: iso(job.runAt),
    attempts: job.attempts,
    bizKey: job.bizKey,
    tag: job.tag,
  };
}

/**
 * A reader that went away (`delayq list | head -1`) ends the command quietly and successfully, as it ends
 * other Unix tools: the write that found the pipe closed is not a failure of the command.
 */
export function closeQuietlyOnBrokenPipe(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}
