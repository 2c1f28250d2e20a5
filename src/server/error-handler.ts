/**
 * The ONLY place that maps a DelayqError code to an HTTP status, and the place that turns Fastify's own
 * errors (bad JSON, schema validation, oversized bodies, unknown routes) into catalogue errors, so every
 * answer of the API has the body `{ error: { code, message, field? } }`. Client mistakes are 4xx; only a
 * bug or a store outage is 5xx.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DelayqError, isDelayqError, type ErrorCode } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';

export const HTTP_STATUS: Record<ErrorCode, number> = {
  E_VALIDATION: 400,
  E_BODY_TOO_LARGE: 413,
  E_NOT_FOUND: 404,
  E_WRONG_STATE: 409,
  E_TOKEN_MISMATCH: 409,
  E_CONFLICT: 409,
  E_UNAUTHORIZED: 401,
  E_FORBIDDEN: 403,
  E_RATE_LIMITED: 429,
  E_STORE_UNAVAILABLE: 503,
  E_SHUTTING_DOWN: 503,
  E_SINK_FAILED: 502,
  E_CONFIG: 500,
  E_INTERNAL: 500,
};

interface ValidationIssue {
  keyword: string;
  instancePath: string;
  /** Where in the schema: `#/anyOf/1/properties/ids` names the union branch the issue comes from. */
  schemaPath?: string;
  message?: string | undefined;
  params?: Record<string, unknown>;
}

/** `/jobs/0/topic` → `jobs[0].topic`. */
function fieldOf(issue: ValidationIssue): string {
  const parts = issue.instancePath.split('/').filter(Boolean);
  const params = issue.params ?? {};
  if (issue.keyword === 'required' && Array.isArray(params['requiredProperties']))
    parts.push(String(params['requiredProperties'][0]));
  if (issue.keyword === 'additionalProperties' && Array.isArray(params['additionalProperties'])) {
    parts.push(String(params['additionalProperties'][0]));
  }
  return parts.reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

/** The union branch an issue comes from (`#/anyOf/1`, the outermost), if it comes from one. */
const branchOf = (issue: ValidationIssue): string | undefined => /^(.*?\/anyOf\/\d+)/.exec(issue.schemaPath ?? '')?.[1];

/**
 * A body may be meant for one branch of a union (`{"ids": []}` for the ids form of a redrive, not the topic
 * form; `{"type": "webhook", …}` for the webhook sink): when one branch takes the value's type, knows every
 * field and agrees with its constants (a `type` discriminant), the branches that found an unknown field or
 * another constant do not describe the body, and their issues are left out.
 */
function issuesOfFittingBranches(issues: readonly ValidationIssue[]): ValidationIssue[] {
  type Fit = { unknownField: boolean; otherType: boolean; otherConstant: boolean };
  const unions = new Map<string, Map<string, Fit>>();
  for (const issue of issues) {
    const branch = branchOf(issue);
    if (branch === undefined) continue;
    const union = branch.replace(/\/\d+$/, '');
    const branches = unions.get(union) ?? new Map<string, Fit>();
    const seen = branches.get(branch) ?? { unknownField: false, otherType: false, otherConstant: false };
    if (issue.keyword === 'additionalProperties') seen.unknownField = true;
    if (issue.keyword === 'const') seen.otherConstant = true;
    if (issue.keyword === 'type' && issue.schemaPath === branch) seen.otherType = true;
    branches.set(branch, seen);
    unions.set(union, branches);
  }
  const strangers = new Set<string>();
  for (const branches of unions.values()) {
    const fits = [...branches.values()].some((b) => !b.unknownField && !b.otherType && !b.otherConstant);
    if (fits) for (const [branch, b] of branches) if (b.unknownField || b.otherConstant) strangers.add(branch);
  }
  return issues.filter((issue) => !strangers.has(branchOf(issue) ?? ''));
}

/**
 * Picks the issue that explains the failure best: unknown and missing fields first (of unknown ones, the
 * branch that knows most of the body), then the deepest path.
 */
function bestIssue(issues: readonly ValidationIssue[]): ValidationIssue | undefined {
  const rank = (i: ValidationIssue): number =>
    i.keyword === 'additionalProperties'
      ? 3
      : i.keyword === 'required'
        ? 2
        : i.keyword === 'anyOf' || i.keyword === 'boolean'
          ? 0
          : 1;
  const unknown = (i: ValidationIssue): number =>
    i.keyword === 'additionalProperties' && Array.isArray(i.params?.['additionalProperties'])
      ? i.params['additionalProperties'].length
      : 0;
  return issuesOfFittingBranches(issues).sort(
    (a, b) => rank(b) - rank(a) || unknown(a) - unknown(b) || b.instancePath.length - a.instancePath.length,
  )[0];
}

/** Regular expressions are not a message for people: say what the limits in core/limits.ts mean. */
const PATTERN_TEXT: Record<string, string> = {
  [LIMITS.topicPattern]: `must be 1–${LIMITS.topicMaxLength} characters of letters, digits, ".", "_", "-", ":" starting with a letter or digit`,
  [LIMITS.idPattern]: `must be 1–${LIMITS.idMaxLength} characters of letters, digits and . _ - : @ + = ~`,
  [LIMITS.pushIdPattern]: `must be 1–${LIMITS.idMaxLength} characters of letters, digits and . _ - : @ + = (or "" for a generated id; "${LIMITS.reservedIdChar}" is kept for the ids of schedule ticks)`,
};

function describeIssue(issue: ValidationIssue, field: string, part: string): string {
  if (issue.keyword === 'additionalProperties') return `${field}: is not a known field`;
  if (issue.keyword === 'required') return `${field}: is required`;
  const pattern = issue.params?.['pattern'];
  if (issue.keyword === 'pattern' && typeof pattern === 'string' && PATTERN_TEXT[pattern])
    return `${field}: ${PATTERN_TEXT[pattern]}`;
  return `${field || part}: ${issue.message ?? 'is invalid'}`;
}

/** For a value that must be one of some literals (a union of constants, or an enum): the literals. */
function allowedValues(issues: readonly ValidationIssue[], instancePath: string): string[] | undefined {
  const here = issues.filter((i) => i.instancePath === instancePath);
  const values = here.flatMap((i) =>
    i.keyword === 'const'
      ? [i.params?.['allowedValue']]
      : i.keyword === 'enum'
        ? ((i.params?.['allowedValues'] as unknown[]) ?? [])
        : [],
  );
  if (values.length === 0 || here.some((i) => !['const', 'enum', 'anyOf'].includes(i.keyword))) return undefined;
  return values.map((v) => JSON.stringify(v));
}

/** Any error → the catalogue error it stands for. */
export function toDelayqError(err: unknown): DelayqError {
  if (isDelayqError(err)) return err;
  const fastifyError = err as Partial<FastifyError> & { validation?: ValidationIssue[]; validationContext?: string };
  if (Array.isArray(fastifyError.validation)) {
    const part = fastifyError.validationContext ?? 'body';
    const issue = bestIssue(fastifyError.validation);
    if (!issue) return new DelayqError('E_VALIDATION', `${part}: is invalid`, { field: part });
    const field = fieldOf(issue);
    const allowed = allowedValues(fastifyError.validation, issue.instancePath);
    const message = allowed
      ? `${field || part}: must be one of ${allowed.join(', ')}`
      : describeIssue(issue, field, part);
    return new DelayqError('E_VALIDATION', message, { field: field || part });
  }
  const status = fastifyError.statusCode ?? 500;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new DelayqError('E_BODY_TOO_LARGE', 'the request body is over the size limit', { field: 'body' });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new DelayqError('E_VALIDATION', 'content-type: send application/json', { field: 'content-type' });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new DelayqError('E_VALIDATION', 'body: a JSON body is required', { field: 'body' });
  }
  if (err instanceof SyntaxError || fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new DelayqError('E_VALIDATION', `body: malformed JSON (${(err as Error).message})`, { field: 'body' });
  }
  if (status === 413)
    return new DelayqError('E_BODY_TOO_LARGE', 'the request body is over the size limit', { field: 'body' });
  if (status === 404) return new DelayqError('E_NOT_FOUND', fastifyError.message ?? 'not found');
  if (status >= 400 && status < 500) return new DelayqError('E_VALIDATION', fastifyError.message ?? 'bad request');
  return new DelayqError('E_INTERNAL', 'internal error', { cause: err });
}

export function statusOf(error: DelayqError): number {
  return HTTP_STATUS[error.code];
}

/** The error body of the REST API. Internal errors never leak their message. */
export function errorBody(error: DelayqError): { error: ReturnType<DelayqError['toJSON']> } {
  return { error: error.toJSON() };
}

export function restErrorHandler(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const error = toDelayqError(err);
  const status = statusOf(error);
  if (status >= 500) request.log.error({ err, code: error.code }, 'request failed');
  else request.log.debug({ code: error.code, field: error.field }, 'request refused');
  return reply.status(status).send(errorBody(error));
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const error = new DelayqError('E_NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`);
  return reply.status(statusOf(error)).send(errorBody(error));
}
