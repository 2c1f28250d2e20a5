/**
 * The dedup window (docs/flow-control.md): the first push of a topic with a `dedupKey` claims the key for
 * `dedupWindowMs`; inside that window every push of the topic with the key answers the first job (outcome
 * `duplicate`, whatever its state) and makes none, whatever its own id. Once the window is over the next push
 * with the key makes a job and opens a new window. The claim lives beside the jobs, not in them: a job's
 * retention does not shorten it, but a job deleted inside the window (retention, an operator) frees the key.
 */
import { parseDurationMs } from './duration.js';
import { invalid } from './errors.js';
import { DEDUP_KEY_RE, LIMITS } from './limits.js';

/** A push's claim on a dedup key of its topic. */
export interface DedupRule {
  key: string;
  windowMs: number;
  /**
   * The claim was taken before the push reached this store (a journal's, store/dedup-claims.ts): the store
   * records the key in the push's history entry and claims nothing.
   */
  claimed?: true;
}

/** The reason of a keyed push's history entry, which the console's job page reads the key from. */
export function dedupPushReason(rule: DedupRule): string {
  return `dedupKey=${rule.key} windowMs=${rule.windowMs}`;
}

const PUSH_REASON_RE = /^dedupKey=(\S+) windowMs=(\d+)$/;

/** The key and window a push entry's reason records (dedupPushReason), or null. */
export function dedupOfPushReason(reason: string | null): DedupRule | null {
  const match = reason === null ? null : PUSH_REASON_RE.exec(reason);
  return match ? { key: match[1]!, windowMs: Number(match[2]) } : null;
}

/** The push's `dedupKey` and `dedupWindowMs` → its rule (undefined: none), or E_VALIDATION naming the field. */
export function normalizeDedup(dedupKey: unknown, dedupWindowMs: unknown): DedupRule | undefined {
  const noKey = dedupKey === undefined || dedupKey === null;
  const noWindow = dedupWindowMs === undefined || dedupWindowMs === null;
  if (noKey) {
    if (!noWindow) throw invalid('dedupWindowMs', 'applies only with a dedupKey');
    return undefined;
  }
  if (typeof dedupKey !== 'string' || !DEDUP_KEY_RE.test(dedupKey))
    throw invalid('dedupKey', `must be 1–${LIMITS.idMaxLength} characters of letters, digits and . _ - : @ + =`);
  if (noWindow) throw invalid('dedupWindowMs', 'is required with a dedupKey');
  const windowMs = parseDurationMs(dedupWindowMs, 'dedupWindowMs');
  if (windowMs < 1 || windowMs > LIMITS.dedupWindowMaxMs)
    throw invalid('dedupWindowMs', `must be from 1 to ${LIMITS.dedupWindowMaxMs} ms (30 days)`);
  return { key: dedupKey, windowMs };
}
