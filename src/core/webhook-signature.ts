import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The webhook signature (docs/sinks.md "Verifying a webhook"):
 *   Delayq-Signature: t=<epoch ms>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>
 * Signing the timestamp with the body lets a receiver refuse replays of an old request; the raw body is
 * signed byte for byte, so receivers must verify before parsing JSON. Receivers import this file as the
 * package's `delayq/webhook` entry, so it imports nothing but node:crypto.
 */
export const SIGNATURE_HEADER = 'delayq-signature';

export function signWebhook(secret: string, timestampMs: number, rawBody: string | Buffer): string {
  const mac = createHmac('sha256', secret).update(`${timestampMs}.`).update(rawBody).digest('hex');
  return `t=${timestampMs},v1=${mac}`;
}

export interface VerifyOptions {
  /** Refuse signatures older (or newer) than this. @defaultValue 5 minutes */
  toleranceMs?: number;
  now?: number;
}

/** For receivers: true when `header` is a valid signature of `rawBody` made with `secret`, recently. */
export function verifyWebhookSignature(
  secret: string,
  header: string | undefined,
  rawBody: string | Buffer,
  options: VerifyOptions = {},
): boolean {
  if (!header) return false;
  const parts = new Map(header.split(',').map((kv) => kv.trim().split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const given = parts.get('v1');
  if (!Number.isFinite(t) || !given || !/^[0-9a-f]{64}$/.test(given)) return false;
  const tolerance = options.toleranceMs ?? 300_000;
  if (Math.abs((options.now ?? Date.now()) - t) > tolerance) return false;
  const expected = signWebhook(secret, t, rawBody).split('v1=')[1]!;
  return timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(given, 'hex'));
}
