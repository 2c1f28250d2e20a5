/** beanstalkd's YAML answers (stats, stats-job, stats-tube, list-tubes): a document of scalars or a list. */
export function yamlMap(fields: Record<string, string | number | boolean>): string {
  let out = '---\n';
  for (const [key, value] of Object.entries(fields))
    out += `${key}: ${typeof value === 'string' ? quoted(value) : String(value)}\n`;
  return out;
}

export function yamlList(items: readonly string[]): string {
  return `---\n${items.map((i) => `- ${quoted(i)}`).join('\n')}${items.length ? '\n' : ''}`;
}

/** Tube names and versions are quoted when YAML would read them as something else. */
function quoted(value: string): string {
  return /^[A-Za-z_][A-Za-z0-9_.:/+-]*$/.test(value) && !/^(true|false|yes|no|null|on|off)$/i.test(value)
    ? value
    : JSON.stringify(value);
}
