/**
 * Two tenants on one node for the isolation suite: billing (B) owns jobs in every state, schedules and a
 * delivery binding in a topic orders (A) may name (`billing.named`) and in one it never hears of (a random
 * `billing.hidden-…`); A has jobs of its own. Every answer A gets is checked to hold nothing of B it did not
 * send itself, and B's whole state is photographed before and after, so a probe that changes anything shows.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { ADMIN, BILLING, ORDERS, call } from './tenant-node.js';

export const SECRET = 'tenant-b-secret-5f2e';

export interface Answer {
  status: number;
  body: any;
  text: string;
}

export interface BillingJobs {
  delayed: string;
  ready: string;
  reserved: string;
  dead: string;
}

export interface World {
  url: string;
  namedTopic: string;
  hiddenTopic: string;
  /** B's jobs in the topic A may name, and the reservation token of its reserved one. */
  named: BillingJobs;
  reservationToken: string;
  namedSchedule: string;
  /** What A never sends: none of it may show in any answer A gets. */
  hidden: string[];
  ownTopic: string;
  ownIds: string[];
  /** A call as orders (A); the answer is checked to hold nothing hidden. */
  a(method: string, path: string, json?: unknown): Promise<Answer>;
  admin(method: string, path: string, json?: unknown): Promise<Answer>;
  /** Everything hidden and the secret body must be absent from `text`. */
  tellsNothing(text: string): void;
  /** B's state as the admin sees it: jobs, schedules, pauses, bindings. */
  photograph(): Promise<unknown>;
}

async function expectStatus(answer: Promise<Answer>, status: number, what: string): Promise<Answer> {
  const got = await answer;
  expect({ what, status: got.status }).toEqual({ what, status });
  return got;
}

/** B's jobs in `topic`, one per state (ready, delayed, reserved, dead), pushed and moved by B itself. */
async function billingJobs(url: string, topic: string, prefix: string): Promise<BillingJobs & { token: string }> {
  const b = (method: string, path: string, json?: unknown) => call(url, BILLING, method, path, json);
  const jobs = { delayed: `${prefix}-d`, ready: `${prefix}-r`, reserved: `${prefix}-x`, dead: `${prefix}-dead` };
  const body = { secret: SECRET };
  const labels = { bizKey: 'shared-key', tag: 'shared-tag', body };
  // Reserved first, then dead: each is the only ready job of the topic when it is reserved.
  await expectStatus(b('POST', '/v1/jobs', { topic, id: jobs.dead, ...labels }), 201, 'push dead');
  const dead = (await b('POST', '/v1/reserve', { topics: [topic], count: 1 })).body.reservations[0];
  await expectStatus(b('POST', `/v1/jobs/${jobs.dead}/fail`, { token: dead.token, bury: true }), 200, 'bury');
  await expectStatus(b('POST', '/v1/jobs', { topic, id: jobs.reserved, ...labels }), 201, 'push reserved');
  const held = (await b('POST', '/v1/reserve', { topics: [topic], count: 1, ttrMs: 600_000 })).body.reservations[0];
  expect(held.job.id).toBe(jobs.reserved);
  await expectStatus(b('POST', '/v1/jobs', { topic, id: jobs.ready, ...labels }), 201, 'push ready');
  await expectStatus(b('POST', '/v1/jobs', { topic, id: jobs.delayed, delayMs: 600_000, ...labels }), 201, 'delayed');
  return { ...jobs, token: held.token as string };
}

export async function buildWorld(url: string): Promise<World> {
  const r = randomBytes(4).toString('hex');
  const namedTopic = `billing.named-${r}`;
  const hiddenTopic = `billing.hidden-${r}`;
  const b = (method: string, path: string, json?: unknown) => call(url, BILLING, method, path, json);
  const { token: reservationToken, ...named } = await billingJobs(url, namedTopic, `named-${r}`);
  const hiddenJobs = await billingJobs(url, hiddenTopic, `hid-${r}`);
  const namedSchedule = `named-sched-${r}`;
  const hiddenSchedule = `hid-sched-${r}`;
  await expectStatus(
    b('PUT', `/v1/schedules/${namedSchedule}`, { topic: namedTopic, everyMs: 3_600_000 }),
    201,
    'sched',
  );
  await expectStatus(b('PUT', `/v1/schedules/${hiddenSchedule}`, { topic: hiddenTopic, everyMs: 3_600_000 }), 201, 's');
  const hook = { type: 'webhook', url: 'http://127.0.0.1:7699/hook' }; // nothing listens: stored, never delivered
  await expectStatus(b('PUT', `/v1/topics/${namedTopic}/sink`, hook), 200, 'sink');
  await expectStatus(b('PUT', `/v1/topics/${hiddenTopic}/sink`, hook), 200, 'hidden sink');
  await expectStatus(b('POST', `/v1/topics/${hiddenTopic}/pause`, {}), 200, 'pause');
  const rateLimit = { perSecond: 1000, burst: 1000 };
  await expectStatus(b('PUT', `/v1/topics/${namedTopic}/settings`, { rateLimit }), 200, 'settings');

  const ownTopic = `orders.a-${r}`;
  const ownIds = [`own-${r}-1`, `own-${r}-2`];
  for (const id of ownIds)
    await expectStatus(
      call(url, ORDERS, 'POST', '/v1/jobs', {
        topic: ownTopic,
        id,
        bizKey: 'shared-key',
        tag: 'shared-tag',
        delayMs: 600_000,
      }),
      201,
      'own job',
    );

  const hidden = [SECRET, hiddenTopic, hiddenSchedule, ...Object.values(hiddenJobs), `hid-${r}`];
  const tellsNothing = (text: string) => {
    for (const secret of hidden) expect(text, `an answer to orders shows ${secret}`).not.toContain(secret);
  };
  const admin = (method: string, path: string, json?: unknown) => call(url, ADMIN, method, path, json);
  const { token: _hiddenToken, ...hiddenIds } = hiddenJobs;
  const billingIds = [...Object.values(named), ...Object.values(hiddenIds)];
  return {
    url,
    namedTopic,
    hiddenTopic,
    named,
    reservationToken,
    namedSchedule,
    hidden,
    ownTopic,
    ownIds,
    async a(method, path, json) {
      const answer = await call(url, ORDERS, method, path, json);
      tellsNothing(answer.text);
      return answer;
    },
    admin,
    tellsNothing,
    async photograph() {
      const jobs = await Promise.all(
        billingIds.map(async (id) => {
          const { job } = (await admin('GET', `/v1/jobs/${id}`)).body;
          return [id, job];
        }),
      );
      const schedules = (await admin('GET', '/v1/schedules')).body.schedules.filter((s: { topic: string }) =>
        s.topic.startsWith('billing.'),
      );
      const topics = (await admin('GET', '/v1/stats')).body.topics.filter((t: { topic: string }) =>
        t.topic.startsWith('billing.'),
      );
      const sinks = (await admin('GET', '/v1/sinks')).body.bindings.filter((s: { topic: string }) =>
        s.topic.startsWith('billing.'),
      );
      const settings = (await admin('GET', `/v1/topics/${namedTopic}/settings`)).body;
      return { jobs, schedules, topics, sinks, settings };
    },
  };
}

/** Asserts the answer is a refusal for naming another topic (403 E_FORBIDDEN) in the protocol's envelope. */
export function expectForbidden(answer: Answer, what: string): void {
  expect({ what, status: answer.status }).toEqual({ what, status: 403 });
  expect(answer.text).toMatch(/E_FORBIDDEN/);
}

/** A call on B's id answers word for word as the same call on an id no job has. */
export async function expectAsUnknown(
  world: World,
  id: string,
  send: (id: string) => Promise<Answer>,
  what: string,
): Promise<void> {
  const unknownId = `${id}-none`;
  const held = await send(id);
  const unknown = await send(unknownId);
  expect({ what, status: held.status }).toEqual({ what, status: unknown.status });
  expect(held.text.replaceAll(id, unknownId), what).toBe(unknown.text);
  expect(held.text, what).toMatch(/E_NOT_FOUND/);
  expect(held.text, what).not.toContain('billing');
}

/** A listing that A gets: none of billing's topics in it. */
export function expectOwnOnly(answer: Answer, what: string): void {
  expect({ what, status: answer.status }).toEqual({ what, status: 200 });
  expect(answer.text, what).not.toContain('billing');
}
