/** beanstalkd reply helpers shared by the command files. */

/** The bytes to write, `null` for none (the client is gone), or 'quit' to close the connection. */
export type Reply = string | Buffer | null | 'quit';

export const BAD_FORMAT = 'BAD_FORMAT\r\n';
export const NOT_FOUND = 'NOT_FOUND\r\n';
const U32_RE = /^\d{1,10}$/;

/** An unsigned 32-bit integer argument, or null (BAD_FORMAT). */
export function u32(text: string | undefined): number | null {
  if (text === undefined || !U32_RE.test(text)) return null;
  const n = Number(text);
  return n <= 0xffffffff ? n : null;
}

/** An `OK <bytes>` answer carrying a YAML document. */
export function okYaml(yaml: string): string {
  return `OK ${Buffer.byteLength(yaml)}\r\n${yaml}\r\n`;
}
