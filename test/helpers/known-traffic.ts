/** Known traffic spread over several instances of one store, for tests that check store-wide figures. */
import { expect } from 'vitest';
import { http } from './http-server.js';

const MINUTE = 60_000;

export interface Reserved {
  job: { id: string };
  token: string;
}

export async function pushJob(url: string, job: object): Promise<void> {
  expect((await http(url, 'POST', '/v1/jobs', { json: job })).status).toBe(201);
}

export async function reserveJobs(url: string, topics: string[], count: number): Promise<Reserved[]> {
  const r = await http(url, 'POST', '/v1/reserve', { json: { topics, count } });
  expect(r.status).toBe(200);
  return r.body.reservations;
}

export async function finishJob(url: string, r: Reserved): Promise<void> {
  expect((await http(url, 'POST', `/v1/jobs/${r.job.id}/finish`, { json: { token: r.token } })).status).toBe(200);
}

/** The transitions `knownTraffic` makes, per topic. */
export const KNOWN_TRANSITIONS = {
  mail: { push: 8, reserve: 3, finish: 2 },
  sms: { push: 2, reserve: 2, bury: 2 },
} as const;

/** The jobs per state it leaves, per topic. */
export const KNOWN_STATES = {
  mail: { delayed: 5, ready: 0, reserved: 1, finished: 2, dead: 0 },
  sms: { delayed: 0, ready: 0, reserved: 0, finished: 0, dead: 2 },
} as const;

/**
 * Round-robin over the instances: mail gets 8 pushes (5 delayed half an hour, inside a journal's horizon),
 * 3 reserved, 2 finished; sms gets 2 pushes, both reserved and failed into the dead letters (maxAttempts 1).
 */
export async function knownTraffic(urls: readonly string[]): Promise<void> {
  const on = (i: number) => urls[i % urls.length]!;
  for (let i = 0; i < 5; i++) await pushJob(on(i), { topic: 'mail', delayMs: 30 * MINUTE });
  for (let i = 0; i < 3; i++) await pushJob(on(i + 1), { topic: 'mail' });
  for (let i = 0; i < 2; i++) await pushJob(on(i), { topic: 'sms', retry: { maxAttempts: 1 } });
  const mail = await reserveJobs(on(1), ['mail'], 3);
  expect(mail).toHaveLength(3);
  for (const r of mail.slice(0, 2)) await finishJob(on(0), r);
  const sms = await reserveJobs(on(0), ['sms'], 2);
  expect(sms).toHaveLength(2);
  for (const r of sms) {
    const failed = await http(on(1), 'POST', `/v1/jobs/${r.job.id}/fail`, { json: { token: r.token, error: 'no' } });
    expect(failed.status).toBe(200);
  }
}
