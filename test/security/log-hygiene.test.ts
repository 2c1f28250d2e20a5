import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, ORDERS_TOKEN, bearer, startSecureServer, type SecureServer } from './support/secure-server.js';

/**
 * Captures everything pino writes (level trace, the most verbose) during a run full of job bodies, bearer
 * tokens and reservation tokens — successes, refusals, malformed and oversized requests, seed endpoints —
 * and greps it: no body and no token may appear. A control run with `log.bodies: true` shows the capture
 * does see bodies when they are logged on purpose.
 */
const MARK = `SECRET-BODY-${Math.random().toString(36).slice(2, 10)}`;
const WRONG_TOKEN = `wrong-token-${Math.random().toString(36).slice(2, 12)}`;

async function exercise(server: SecureServer): Promise<string[]> {
  const tokens: string[] = [];
  const send = async (
    method: string,
    path: string,
    body?: string,
    token: string | null = ADMIN_TOKEN,
    type = 'application/json',
  ) => {
    const response = await fetch(server.url + path, {
      method,
      headers: { ...(token ? bearer(token) : {}), ...(body === undefined ? {} : { 'content-type': type }) },
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    return { status: response.status, json: text.startsWith('{') ? (JSON.parse(text) as any) : null };
  };
  const job = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({ topic: 'orders.logs', body: { card: MARK, note: `${MARK}-note` }, ...extra });

  for (let i = 0; i < 5; i++) expect((await send('POST', '/v1/jobs', job({ id: `log-${i}` }))).status).toBe(201);
  await send(
    'POST',
    '/v1/jobs/batch',
    JSON.stringify({ jobs: [JSON.parse(job({ id: 'log-b1' })), JSON.parse(job({ id: 'log-b2' }))] }),
  );
  await send('POST', '/v1/jobs', job(), ORDERS_TOKEN);
  await send('POST', '/v1/jobs', JSON.stringify({ topic: 'billing.x', body: MARK }), ORDERS_TOKEN); // 403
  await send('POST', '/v1/jobs', job(), WRONG_TOKEN); // 401
  await send('POST', '/v1/jobs', job(), null); // 401
  await send('POST', '/v1/jobs', job({ priority: 'high' })); // 400 validation
  await send('POST', '/v1/jobs', job({ unknown: MARK })); // 400 unknown field
  await send('POST', '/v1/jobs', `{"topic":"orders.logs","body":"${MARK}"`); // malformed JSON
  await send('POST', '/v1/jobs', JSON.stringify({ topic: 'orders.logs', body: MARK.repeat(300_000) })); // over the body limit
  await send('POST', '/v1/jobs', `topic=orders.logs&body=${MARK}`, ADMIN_TOKEN, 'application/x-www-form-urlencoded');
  const reserved = await send('POST', '/v1/reserve', JSON.stringify({ topics: ['orders.logs'], count: 3 }));
  for (const r of reserved.json.reservations) tokens.push(r.token);
  await send('POST', `/v1/jobs/${reserved.json.reservations[0].job.id}/finish`, JSON.stringify({ token: tokens[0] }));
  await send(
    'POST',
    `/v1/jobs/${reserved.json.reservations[1].job.id}/fail`,
    JSON.stringify({ token: tokens[1], error: 'failed' }),
  );
  await send(
    'POST',
    `/v1/jobs/${reserved.json.reservations[2].job.id}/finish`,
    JSON.stringify({ token: `${tokens[2]}x` }),
  ); // stale
  await send('POST', '/push', JSON.stringify({ topic: 'orders.logs', id: 'log-m1', body: MARK }));
  const got = await send('GET', '/get/orders.logs');
  expect(JSON.stringify(got.json)).toContain(MARK); // the body went out to the consumer…
  await send('POST', '/youzan', JSON.stringify({ command: 'add', topic: 'orders.logs', id: 'log-y1', body: MARK }));
  await send('POST', '/youzan', JSON.stringify({ command: 'pop', topic: 'orders.logs' }));
  await send('GET', '/clearAll', undefined, ORDERS_TOKEN);
  await send('POST', '/v1/purge', JSON.stringify({ before: Date.now() }));
  // A consumer that gives up on a long-poll (the server logs the release).
  const abort = new AbortController();
  const poll = fetch(`${server.url}/v1/reserve`, {
    method: 'POST',
    signal: abort.signal,
    headers: { ...bearer(ADMIN_TOKEN), 'content-type': 'application/json' },
    body: JSON.stringify({ topics: ['orders.idle'], waitMs: 5000 }),
  });
  setTimeout(() => abort.abort(), 100);
  await poll.catch(() => undefined);
  return tokens;
}

describe('log hygiene', () => {
  it('logs no job body, no bearer token and no reservation token, at any level', async () => {
    const server = await startSecureServer(7606, { captureLogs: true, logLevel: 'trace' });
    let tokens: string[];
    try {
      tokens = await exercise(server);
    } finally {
      await server.close();
    }
    const log = server.logText();
    const lines = log.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(20); // the capture works: every request left a debug line
    expect(log).toContain('"audit"'); // …and the audit lines are there, naming identities
    expect(log).toContain('orders-app');
    for (const secret of [MARK, ADMIN_TOKEN, ORDERS_TOKEN, WRONG_TOKEN, ...tokens]) {
      expect({ secret, found: log.includes(secret) }).toEqual({ secret, found: false });
    }
    expect(log.toLowerCase()).not.toContain('bearer ');
  });

  it('control: with log.bodies on, the same capture does see bodies (so the test above can fail)', async () => {
    const server = await startSecureServer(7607, {
      captureLogs: true,
      logLevel: 'debug',
      overrides: { log: { bodies: true } },
    });
    try {
      await exercise(server);
    } finally {
      await server.close();
    }
    const log = server.logText();
    expect(log).toContain(MARK);
    // Even then, tokens stay out.
    expect(log).not.toContain(ADMIN_TOKEN);
    expect(log).not.toContain(ORDERS_TOKEN);
  });
});
