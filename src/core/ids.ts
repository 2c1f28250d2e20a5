import { randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulid';

const nextUlid = monotonicFactory();

/** A generated job id: a ULID (26 chars), unique and sortable by creation time, even within one ms. */
export function newJobId(now: number): string {
  return nextUlid(now);
}

/**
 * A reservation token: 96 random bits, so a stale or guessed token cannot finish someone else's job.
 * Hex, not base64url: a token starting with "-" would be read as an option by the CLI and shells.
 */
export function newToken(): string {
  return randomBytes(12).toString('hex');
}

/** A name for this process in job history: host and pid, unless configured. */
export function defaultNodeId(hostname: string, pid: number): string {
  return `${hostname}:${pid}`;
}
