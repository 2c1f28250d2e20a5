import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

// Random bytes come from one pool refilled 4 KiB at a time, because a native call per id or token costs
// more than its bytes (ulid's default source makes one per character). Bytes are never handed out twice.
const pool = Buffer.alloc(4096);
let poolAt = pool.length;
function take(n: number): number {
  if (poolAt + n > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  poolAt += n;
  return poolAt - n;
}
function pooledRandom(): number {
  return pool[take(1)]! / 256;
}
const randomHex = (bytes: number): string => {
  const at = take(bytes);
  return pool.toString('hex', at, at + bytes);
};

const nextUlid = monotonicFactory(pooledRandom);

/** A generated job id: a ULID (26 chars), unique and sortable by creation time, even within one ms. */
export function newJobId(now: number): string {
  return nextUlid(now);
}

/**
 * A reservation token: 96 random bits, so a stale or guessed token cannot finish someone else's job.
 * Hex, not base64url: a token starting with "-" would be read as an option by the CLI and shells.
 */
export function newToken(): string {
  return randomHex(12);
}

/**
 * The random part of a batch of tokens a store mints in one call (16 hex digits; the store appends an
 * 8-digit counter, so tokens keep newToken's length). One random draw per reserve, not per job.
 */
export function newTokenBase(): string {
  return randomHex(8);
}

/** A name for this process in job history: host and pid, unless configured. */
export function defaultNodeId(hostname: string, pid: number): string {
  return `${hostname}:${pid}`;
}
