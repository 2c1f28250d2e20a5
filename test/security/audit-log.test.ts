import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, ORDERS_TOKEN, bearer, startSecureServer, type SecureServer } from './support/secure-server.js';

/**
 * Admin actions (redrive, purge, restore, clearAll) leave one structured audit line each — granted or
 * refused — naming the token's identity (never the token) and the target; redrive is also in job history.
 */
let server: SecureServer;

beforeAll(async () => {
  server = await startSecureServer(7608, { captureLogs: true, logLevel: 'info' });
});
afterAll(() => server.close());

interface AuditLine {
  action: string;
  actor: string;
  route: string;
  target: Record<string, unknown>;
  status: number;
  outcome: 'done' | 'refused';
  count?: number;
}

function audits(): AuditLine[] {
  return server
    .logText()
    .split('\n')
    .filter((line) => line.includes('"audit"'))
    .map((line) => (JSON.parse(line) as { audit: AuditLine }).audit);
}

async function call(token: string | null, method: string, path: string, json?: unknown) {
  const response = await fetch(server.url + path, {
    method,
    headers: { ...(token ? bearer(token) : {}), ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe('audit of admin actions', () => {
  it('redrive: one line naming the admin, the ids and the count; the job history records the redrive', async () => {
    const id = 'audit-dead-1';
    await call(ADMIN_TOKEN, 'POST', '/v1/jobs', { topic: 'orders.audit', id, retry: { maxAttempts: 1 } });
    const { body } = await call(ADMIN_TOKEN, 'POST', '/v1/reserve', { topics: ['orders.audit'] });
    await call(ADMIN_TOKEN, 'POST', `/v1/jobs/${id}/fail`, { token: body.reservations[0].token, error: 'boom' });
    const before = audits().length;
    expect((await call(ADMIN_TOKEN, 'POST', '/v1/dead/redrive', { ids: [id] })).body.count).toBe(1);
    const lines = audits().slice(before);
    expect(lines).toEqual([
      expect.objectContaining({
        action: 'redrive',
        actor: 'ops-admin',
        route: 'POST /v1/dead/redrive',
        target: { ids: [id] },
        status: 200,
        outcome: 'done',
        count: 1,
      }),
    ]);
    const history = (await call(ADMIN_TOKEN, 'GET', `/v1/jobs/${id}/history`)).body.history as { event: string }[];
    expect(history.map((h) => h.event)).toContain('redrive');
  });

  it('purge, restore and clearAll by the admin are logged as done with their targets', async () => {
    const before = audits().length;
    const purgeBefore = Date.now() - 1000;
    await call(ADMIN_TOKEN, 'POST', '/v1/purge', { before: purgeBefore, limit: 10 });
    await call(ADMIN_TOKEN, 'GET', '/reStore?expire=false');
    await call(ADMIN_TOKEN, 'GET', '/reStoreJob?jobId=audit-x');
    await call(ADMIN_TOKEN, 'GET', '/clearAll');
    const lines = audits().slice(before);
    expect(lines.map((l) => [l.action, l.actor, l.outcome])).toEqual([
      ['purge', 'ops-admin', 'done'],
      ['restore', 'ops-admin', 'done'],
      ['restore', 'ops-admin', 'done'],
      ['clearAll', 'ops-admin', 'done'],
    ]);
    expect(lines[0]!.target).toEqual({ before: purgeBefore, limit: 10 });
    expect(lines[1]!.target).toEqual({ expire: 'false' });
    expect(lines[2]!.target).toEqual({ jobId: 'audit-x' });
    expect(server.restore.calls).toEqual(['restore(false)', 'restoreJob(audit-x)', 'clearAll']);
  });

  it('refused attempts are logged too, with who tried: a scoped token, an encoded path, no token', async () => {
    const before = audits().length;
    const calls = server.restore.calls.length;
    await call(ORDERS_TOKEN, 'GET', '/clearAll');
    await call(ORDERS_TOKEN, 'GET', '/%63learAll');
    await call(ORDERS_TOKEN, 'POST', '/v1/purge', { before: Date.now() });
    await call(null, 'GET', '/reStore');
    const lines = audits().slice(before);
    expect(lines.map((l) => [l.action, l.actor, l.status, l.outcome])).toEqual([
      ['clearAll', 'orders-app', 403, 'refused'],
      ['clearAll', 'orders-app', 403, 'refused'],
      ['purge', 'orders-app', 403, 'refused'],
      ['restore', 'anonymous', 401, 'refused'],
    ]);
    expect(server.restore.calls.length).toBe(calls);
  });

  it('logs no audit line for ordinary work, and never a token', async () => {
    const before = audits().length;
    await call(ADMIN_TOKEN, 'POST', '/v1/jobs', { topic: 'orders.audit' });
    await call(ADMIN_TOKEN, 'GET', '/v1/stats');
    expect(audits().length).toBe(before);
    expect(server.logText()).not.toContain(ADMIN_TOKEN);
    expect(server.logText()).not.toContain(ORDERS_TOKEN);
  });
  it('push-route changes and a HEAD on clearAll (Fastify runs the GET handler) are audited too', async () => {
    const before = audits().length;
    const calls = server.restore.calls.length;
    await call(ADMIN_TOKEN, 'PUT', '/v1/topics/orders.hooked/sink', {
      type: 'webhook',
      url: 'http://127.0.0.1:7699/hook',
      secret: 'a-secret-of-16-chars-or-more',
    });
    await call(ORDERS_TOKEN, 'PUT', '/v1/topics/orders.hooked/sink', {
      type: 'webhook',
      url: 'http://127.0.0.1:7699/hook',
      allowedRanges: ['loopback'],
    });
    await call(ADMIN_TOKEN, 'DELETE', '/v1/topics/orders.hooked/sink');
    await fetch(`${server.url}/clearAll`, { method: 'HEAD', headers: bearer(ADMIN_TOKEN) });
    const lines = audits().slice(before);
    expect(lines.map((l) => [l.action, l.actor, l.outcome])).toEqual([
      ['setSinkBinding', 'ops-admin', 'done'],
      ['setSinkBinding', 'orders-app', 'refused'],
      ['deleteSinkBinding', 'ops-admin', 'done'],
      ['clearAll', 'ops-admin', 'done'],
    ]);
    expect(lines[0]!.target).toEqual({ topic: 'orders.hooked', type: 'webhook' });
    expect(server.restore.calls.length).toBe(calls + 1);
    expect(server.logText()).not.toContain('a-secret-of-16-chars-or-more');
  });
});
