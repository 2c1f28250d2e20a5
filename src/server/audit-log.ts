/**
 * Audit trail of the admin actions (redrive, purge, restore, clearAll, delivery binding changes and tests): one structured `info` line per
 * attempt, granted or refused, naming who asked (the token's identity, never the token) and what they
 * targeted. Matched on route patterns, so an encoded or odd URL cannot dodge it. Job bodies are never logged.
 */
import type { FastifyInstance, FastifyRequest, onResponseHookHandler, onSendHookHandler } from 'fastify';

export type AuditAction =
  'redrive' | 'purge' | 'restore' | 'clearAll' | 'bulk' | 'setSinkBinding' | 'deleteSinkBinding' | 'testSinkBinding';

/** `METHOD pattern` → the admin action it performs. HEAD runs the GET handler, so it is looked up as GET. */
export const AUDITED_ROUTES: Readonly<Record<string, AuditAction>> = {
  'POST /v1/dead/redrive': 'redrive',
  'POST /v1/purge': 'purge',
  'GET /reStore': 'restore',
  'GET /reStore/:id': 'restore',
  'GET /reStoreJob': 'restore',
  'GET /clearAll': 'clearAll',
  'POST /v1/restore': 'restore',
  'POST /v1/jobs/:id/restore': 'restore',
  'POST /v1/clear-all': 'clearAll',
  'POST /v1/jobs/bulk': 'bulk',
  'PUT /v1/topics/:topic/sink': 'setSinkBinding',
  'DELETE /v1/topics/:topic/sink': 'deleteSinkBinding',
  'POST /v1/topics/:topic/sink/test': 'testSinkBinding',
};

function auditedAction(request: FastifyRequest): AuditAction | undefined {
  const url = request.routeOptions.url;
  if (url === undefined) return undefined;
  return AUDITED_ROUTES[`${request.method === 'HEAD' ? 'GET' : request.method} ${url}`];
}

const MAX_IDS_LOGGED = 20;

/** What the request aimed at: topic, ids, ages, sink type; the fields of the admin requests, nothing else (no URL: it may hold credentials). */
function targetOf(request: FastifyRequest): Record<string, unknown> {
  const target: Record<string, unknown> = {};
  const pick = (source: unknown, keys: readonly string[]): void => {
    if (typeof source !== 'object' || source === null) return;
    for (const key of keys) {
      const value = (source as Record<string, unknown>)[key];
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') target[key] = value;
      else if (Array.isArray(value)) target[key] = value.slice(0, MAX_IDS_LOGGED).filter((v) => typeof v === 'string');
    }
  };
  pick(request.body, ['topic', 'ids', 'limit', 'before', 'type', 'action', 'runAt', 'shiftMs', 'cursor', 'dryRun']);
  pick((request.body as { selector?: unknown } | undefined)?.selector, [
    'topic',
    'bizKey',
    'tag',
    'state',
    'dueFrom',
    'dueTo',
  ]);
  pick(request.query, ['expire', 'jobId']);
  pick(request.params, ['id', 'topic']);
  return target;
}

/** The outcome as the answer says it: REST count or error code; the seed endpoints' `success` and message. */
function resultOf(payload: unknown): Record<string, unknown> {
  if (typeof payload !== 'string') return {};
  try {
    const body = JSON.parse(payload) as {
      count?: unknown;
      matched?: unknown;
      applied?: unknown;
      ok?: unknown;
      success?: unknown;
      message?: unknown;
      data?: unknown;
      error?: { code?: unknown };
    };
    return {
      ...(body.count !== undefined ? { count: body.count } : {}),
      ...(body.matched !== undefined ? { matched: body.matched, applied: body.applied } : {}),
      ...(typeof body.ok === 'boolean' ? { ok: body.ok } : {}),
      ...(body.error?.code !== undefined ? { code: body.error.code } : {}),
      ...(body.success !== undefined
        ? { success: body.success, message: typeof body.data === 'string' ? body.data : body.message }
        : {}),
    };
  } catch {
    return {};
  }
}

const auditResult = Symbol('delayq.auditResult');
type AuditedRequest = FastifyRequest & { [auditResult]?: Record<string, unknown> };

/** The hooks go on the audited routes only (at route registration), so every other request pays nothing for them. */
export function registerAuditLog(app: FastifyInstance): void {
  const onSend: onSendHookHandler = async (request, _reply, payload) => {
    if (auditedAction(request)) {
      (request as AuditedRequest)[auditResult] = resultOf(payload);
    }
    return payload;
  };
  const onResponse: onResponseHookHandler = async (request, reply) => {
    const action = auditedAction(request);
    if (!action) return;
    const result = (request as AuditedRequest)[auditResult] ?? {};
    const granted = reply.statusCode < 400 && result['success'] !== false;
    request.log.info(
      {
        audit: {
          action,
          actor: request.principal?.id ?? 'anonymous',
          ip: request.ip,
          route: `${request.method} ${request.routeOptions.url}`,
          target: targetOf(request),
          status: reply.statusCode,
          outcome: granted ? 'done' : 'refused',
          ...result,
        },
      },
      `audit: ${action} ${granted ? 'done' : 'refused'}`,
    );
  };
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((m) => AUDITED_ROUTES[`${m === 'HEAD' ? 'GET' : m} ${route.url}`])) return;
    route.onSend = [...asList(route.onSend), onSend];
    route.onResponse = [...asList(route.onResponse), onResponse];
  });
}

const asList = <T>(hooks: T | T[] | undefined): T[] =>
  hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
