/**
 * How beanstalkd's job fields map onto delayq's (docs/beanstalkd.md, "Jobs"):
 *  - body: beanstalkd bodies are bytes. Valid UTF-8 is stored as a JSON string (so an HTTP consumer sees
 *    the text); other bytes as `{"$base64": "…"}`. Back over the protocol a string body is its UTF-8 bytes,
 *    `{"$base64"}` its decoded bytes, and any other JSON body (pushed over HTTP) its JSON text.
 *  - priority: beanstalkd's 0…2^32−1 (lower first) → delayq's −32768…32767 as min(pri, 65535) − 32768, so
 *    0…65535 round-trip exactly and larger values share the least urgent priority.
 *  - delay and TTR are whole seconds.
 */
import { LIMITS } from '../core/limits.js';

const BASE64_KEY = '$base64';
const utf8 = new TextDecoder('utf-8', { fatal: true });

export function bodyFromBytes(bytes: Buffer): unknown {
  try {
    return utf8.decode(bytes);
  } catch {
    return { [BASE64_KEY]: bytes.toString('base64') };
  }
}

export function bytesFromBody(body: unknown): Buffer {
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (isBase64Body(body)) return Buffer.from(body[BASE64_KEY], 'base64');
  return Buffer.from(JSON.stringify(body ?? null), 'utf8');
}

function isBase64Body(body: unknown): body is { [BASE64_KEY]: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const keys = Object.keys(body);
  return (
    keys.length === 1 && keys[0] === BASE64_KEY && typeof (body as Record<string, unknown>)[BASE64_KEY] === 'string'
  );
}

const PRIORITY_SPAN = LIMITS.priorityMax - LIMITS.priorityMin; // 65535

export function priorityFromPri(pri: number): number {
  return Math.min(pri, PRIORITY_SPAN) + LIMITS.priorityMin;
}

export function priFromPriority(priority: number): number {
  return priority - LIMITS.priorityMin;
}

/** Whole seconds (rounded up, as a job due in 0.2 s is not due yet) from a span in ms. */
export function secondsFrom(ms: number): number {
  return Math.max(0, Math.ceil(ms / 1000));
}
