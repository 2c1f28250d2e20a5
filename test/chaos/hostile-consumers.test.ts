// Hostile consumers against a delayq server child (SQLite): they reserve and vanish, finish with a stale
// token, and hold thousands of idle long-polls open and then drop them.
import { randomBytes } from 'node:crypto';
import { request, Agent } from 'node:http';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigure } from './chaos-figures.js';
import { CHAOS_ROOT, LONG, ServerProcess, waitUntil } from './chaos-processes.js';
import { getJson, postJson, push, reserve } from './chaos-http.js';

const path = join(CHAOS_ROOT, `hostile-${randomBytes(4).toString('hex')}.db`);
const server = new ServerProcess({ port: 7540, nodeId: 'hostile', store: 'sqlite', sqlitePath: path });
beforeAll(() => server.start(), 60_000);
afterAll(async () => {
  await server.stop();
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
});

const waiting = async (): Promise<number> => (await getJson(`${server.url}/ready`)).json.waitingConsumers as number;

describe('hostile consumers', () => {
  it('reserve and vanish: every job is delivered again at its TTR deadline ± 1 s (no backoff configured)', async () => {
    const topic = `vanish.${randomBytes(3).toString('hex')}`;
    const n = 30;
    for (let i = 0; i < n; i++)
      await push(server.url, {
        id: `${topic}-${i}`,
        topic,
        ttrMs: 2000,
        retry: { maxAttempts: 3, backoff: { type: 'fixed', delayMs: 0 } },
      });
    const vanished = new Map<string, number>();
    while (vanished.size < n)
      for (const r of await reserve(server.url, topic, 100, 500)) vanished.set(r.job.id, r.deadlineAt);
    // …and the consumer is gone. A well-behaved one waits for the redeliveries.
    // offset of each redelivery (the server's reservation time) from the vanished reservation's deadline
    const offsets: number[] = [];
    const receivedOffsets: number[] = [];
    while (offsets.length < n) {
      for (const r of await reserve(server.url, topic, 100, 3000)) {
        offsets.push(r.deadlineAt - r.job.ttrMs - vanished.get(r.job.id)!);
        receivedOffsets.push(Date.now() - vanished.get(r.job.id)!);
        expect(r.job.attempts).toBe(2);
        await postJson(`${server.url}/v1/jobs/${r.job.id}/finish`, { token: r.token });
      }
    }
    recordFigure('hostile-vanish', {
      jobs: n,
      ttrMs: 2000,
      redeliveredAfterDeadlineMs: { min: Math.min(...offsets), max: Math.max(...offsets) },
      receivedByConsumerAfterDeadlineMs: { min: Math.min(...receivedOffsets), max: Math.max(...receivedOffsets) },
    });
    for (const offset of offsets) {
      expect(offset).toBeGreaterThanOrEqual(-1000);
      expect(offset).toBeLessThanOrEqual(1000);
    }
  }, 60_000);

  it('a stale token is refused for finish, touch and fail; the current holder keeps the job', async () => {
    const topic = `stale.${randomBytes(3).toString('hex')}`;
    const job = await push(server.url, { topic, ttrMs: 500 });
    const [first] = await reserve(server.url, topic, 1, 1000);
    const [second] = await reserve(server.url, topic, 1, 3000); // after the first lapsed
    expect(second!.job.id).toBe(job.id);
    expect(second!.token).not.toBe(first!.token);
    const codes: Record<string, string> = {};
    for (const action of ['finish', 'touch', 'fail']) {
      const res = await postJson(`${server.url}/v1/jobs/${job.id}/${action}`, { token: first!.token });
      expect(res.status).toBe(409);
      codes[action] = res.json.error.code;
      expect(res.json.error.code).toBe('E_TOKEN_MISMATCH');
    }
    expect((await getJson(`${server.url}/v1/jobs/${job.id}`)).json.job.state).toBe('reserved');
    expect((await postJson(`${server.url}/v1/jobs/${job.id}/finish`, { token: second!.token })).status).toBe(200);
    const late = await postJson(`${server.url}/v1/jobs/${job.id}/finish`, { token: first!.token });
    expect(late.status).toBe(409);
    recordFigure('hostile-stale-token', { refused: codes, afterFinish: late.json.error.code });
  }, 30_000);

  it('thousands of idle long-polls: memory bounded, every waiter released on disconnect', async () => {
    const polls = LONG ? 5000 : 1000;
    const topic = `idle.${randomBytes(3).toString('hex')}`;
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
    const mib = (b: number) => Math.round((b / 1048576) * 10) / 10;
    const rounds: { waitingMiB: number; afterMiB: number; heapAfterGcMiB: number; releasedMs: number }[] = [];
    const heapBefore = (await server.child!.heapAfterGc()).heapUsed;
    const rssBefore = server.child!.rssBytes();
    let peak = rssBefore;
    for (let round = 0; round < (LONG ? 4 : 2); round++) {
      const requests = Array.from({ length: polls }, () => {
        const req = request(`${server.url}/v1/reserve`, {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json' },
        });
        req.on('error', () => undefined);
        req.end(JSON.stringify({ topics: [topic], count: 1, waitMs: 60_000 }));
        return req;
      });
      await waitUntil(`${polls} waiting consumers`, async () => (await waiting()) === polls, 60_000, 250);
      const rssWaiting = server.child!.rssBytes();
      peak = Math.max(peak, rssWaiting);
      const t0 = Date.now();
      for (const req of requests) req.destroy();
      await waitUntil('waiting consumers back to 0', async () => (await waiting()) === 0, 20_000, 100);
      const releasedMs = Date.now() - t0;
      const heap = await server.child!.heapAfterGc();
      rounds.push({
        waitingMiB: mib(rssWaiting),
        afterMiB: mib(heap.rss),
        heapAfterGcMiB: mib(heap.heapUsed),
        releasedMs,
      });
    }
    agent.destroy();
    const perPollKiB = Math.round((peak - rssBefore) / polls / 102.4) / 10;
    recordFigure('hostile-idle-long-polls', {
      polls,
      rssBeforeMiB: mib(rssBefore),
      heapBeforeMiB: mib(heapBefore),
      peakMiB: mib(peak),
      perPollKiB,
      rounds,
    });
    // bounded: under 32 KiB of resident memory per idle long-poll (socket, request, waiter)…
    expect(peak - rssBefore).toBeLessThan(polls * 32 * 1024);
    // …and released: after the disconnects and a GC, live memory is back near where it started, every round
    for (const round of rounds) expect(round.heapAfterGcMiB).toBeLessThan(mib(heapBefore) + 8);
    // a job pushed now still reaches a consumer: nothing is left holding the topic
    await push(server.url, { topic });
    expect(await reserve(server.url, topic, 1, 2000)).toHaveLength(1);
  }, 120_000);
});
