import { randomBytes, randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

// ulid draws one random byte per character, and its default source makes a getRandomValues call for
// each (16 a millisecond under load): take them from a pool refilled 4 KiB at a time instead.
const pool = Buffer.alloc(4096);
let poolAt = pool.length;
function pooledRandom(): number {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++]! / 256;
}

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
  return randomBytes(12).toString('hex');
}

/**
 * The random part of a batch of tokens a store mints in one call (16 hex digits; the store appends an
 * 8-digit counter, so tokens keep newToken's length). One random draw per reserve, not per job.
 */
export function newTokenBase(): string {
  return randomBytes(8).toString('hex');
}

/** A name for this process in job history: host and pid, unless configured. */
export function defaultNodeId(hostname: string, pid: number): string {
  return `${hostname}:${pid}`;
}
