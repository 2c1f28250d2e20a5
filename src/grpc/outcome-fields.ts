/**
 * A finish's result and a fail's structured error over gRPC (docs/grpc.md, docs/job-api.md): protobuf has no
 * field for "any JSON value", so the result and the error's details travel as JSON text. Parsed here; text
 * that is not JSON is refused with E_VALIDATION naming the field.
 */
import { invalid } from '../core/errors.js';
import type { ErrorInput } from '../core/job-outcome.js';

/** JSON text → its value; undefined when absent. */
export function jsonField(text: string | undefined, field: string): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalid(field, 'must be JSON text');
  }
}

/** `error` (the message) with an optional code and details → the fail's error, structured when either is set. */
export function failErrorOf(
  message: string | null | undefined,
  code: string | undefined,
  detailsJson: string | undefined,
  field = 'errorDetailsJson',
): ErrorInput | undefined {
  if (code === undefined && detailsJson === undefined) return message ?? undefined;
  const details = jsonField(detailsJson, field);
  return {
    message: message ?? '',
    ...(code === undefined ? {} : { code }),
    ...(details === undefined ? {} : { details }),
  };
}
