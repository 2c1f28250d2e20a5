/**
 * The catalogue (core/errors.ts) as gRPC statuses: the only place that maps a code to a gRPC status
 * (docs/grpc.md lists it). The status carries the message as its details, and the catalogue code, the
 * field at fault and any details in trailing metadata, so clients branch on the same codes as over HTTP.
 */
import { Metadata, status as Status, type StatusObject } from '@grpc/grpc-js';
import type { ErrorCode } from '../core/errors.js';
import { toDelayqError } from '../server/error-handler.js';

export const GRPC_STATUS: Record<ErrorCode, Status> = {
  E_VALIDATION: Status.INVALID_ARGUMENT,
  E_BODY_TOO_LARGE: Status.RESOURCE_EXHAUSTED,
  E_NOT_FOUND: Status.NOT_FOUND,
  E_WRONG_STATE: Status.FAILED_PRECONDITION,
  E_TOKEN_MISMATCH: Status.ABORTED,
  E_CONFLICT: Status.FAILED_PRECONDITION,
  E_UNAUTHORIZED: Status.UNAUTHENTICATED,
  E_FORBIDDEN: Status.PERMISSION_DENIED,
  E_RATE_LIMITED: Status.RESOURCE_EXHAUSTED,
  E_STORE_UNAVAILABLE: Status.UNAVAILABLE,
  E_SHUTTING_DOWN: Status.UNAVAILABLE,
  E_SINK_FAILED: Status.UNAVAILABLE,
  E_CONFIG: Status.INTERNAL,
  E_INTERNAL: Status.INTERNAL,
};

/** Trailing metadata keys of an error status. */
export const CODE_KEY = 'delayq-code';
export const FIELD_KEY = 'delayq-field';
export const DETAILS_KEY = 'delayq-details';

/** Any error → the status to end the call with. Internal errors never leak their message. */
export function toGrpcStatus(
  err: unknown,
): Partial<StatusObject> & { code: Status; details: string; metadata: Metadata } {
  const error = toDelayqError(err);
  const metadata = new Metadata();
  metadata.set(CODE_KEY, error.code);
  if (error.field !== undefined) metadata.set(FIELD_KEY, error.field);
  if (error.details !== undefined) metadata.set(DETAILS_KEY, JSON.stringify(error.details));
  const details = error.code === 'E_INTERNAL' ? 'internal error' : error.message;
  return { code: GRPC_STATUS[error.code], details, metadata };
}
