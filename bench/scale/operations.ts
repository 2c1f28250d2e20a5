// Operations at the largest backlog of a shape, after its last measurements: a bulk cancel by selector (one
// topic's jobs, `POST /v1/jobs/bulk` slice after slice) while a 1k due/s stream runs, then a purge of what ended
// (`POST /v1/purge` in calls of 10,000 until none is left) while `GET /health` is asked every 5 ms: its slowest
// answer is the longest the server's event loop stood still, as a client sees it.
import { percentile, sleep } from '../lib.js';
import { CONSUMER_CONCURRENCY } from '../scenarios.js';
import type { Metrics } from './checkpoint.js';
import type { ScaleShape } from './shapes.js';
import { StreamSubject } from './stream.js';

export const CANCEL_TOPIC = 't7';
export const PURGE_LIMIT = 10_000;
const STREAM_RATE = 1000;
const STREAM_LEAD_MS = 1000;

/** Runs `fn` beside a 1k due/s stream; the stream's lateness of the jobs due while `fn` ran. */
async function besideStream(port: number, fn: () => Promise<void>): Promise<{ p99: number; max: number }> {
  const stream = new StreamSubject(port);
  const samples: { due: number; late: number }[] = [];
  const consumer = await stream.consume(CONSUMER_CONCURRENCY, (due) => samples.push({ due, late: Date.now() - due }));
  let producing = true;
  const producer = (async () => {
    const startedAt = Date.now();
    for (let produced = 0; producing; await sleep(5)) {
      const batch: Promise<void>[] = [];
      for (const upTo = Math.floor(((Date.now() - startedAt) * STREAM_RATE) / 1000) + 1; produced < upTo; produced++)
        batch.push(stream.push(Math.round(startedAt + (produced * 1000) / STREAM_RATE + STREAM_LEAD_MS)));
      await Promise.all(batch);
    }
  })();
  let from = 0;
  let to = 0;
  try {
    await sleep(STREAM_LEAD_MS + 500);
    from = Date.now();
    await fn();
    to = Date.now();
    await sleep(STREAM_LEAD_MS + 500);
  } finally {
    producing = false;
    await producer;
    await consumer.stop();
    await stream.close();
  }
  const during = samples
    .filter((s) => s.due >= from && s.due <= to)
    .map((s) => s.late)
    .sort((a, b) => a - b);
  return { p99: percentile(during, 99), max: during[during.length - 1] ?? Number.NaN };
}

export async function cancelAndPurge(shape: ScaleShape): Promise<Metrics> {
  const m: Metrics = {};
  let cancelled = 0;
  let seconds = 0;
  const stream = await besideStream(shape.port, async () => {
    const started = performance.now();
    let cursor: string | null = null;
    do {
      const answer = (await shape.http.post('/v1/jobs/bulk', {
        action: 'cancel',
        selector: { topic: CANCEL_TOPIC },
        reason: 'bench',
        ...(cursor ? { cursor } : {}),
      })) as { applied: number; next: string | null };
      cancelled += answer.applied;
      cursor = answer.next;
    } while (cursor);
    seconds = (performance.now() - started) / 1000;
  });
  Object.assign(m, {
    cancelled,
    cancelRate: cancelled / seconds,
    cancelStreamP99: stream.p99,
    cancelStreamMax: stream.max,
  });

  const before = Date.now();
  let purged = 0;
  let probing = true;
  let slowest = 0;
  const probe = (async () => {
    while (probing) {
      const t = performance.now();
      await shape.http.request('GET', '/health');
      slowest = Math.max(slowest, performance.now() - t);
      await sleep(5);
    }
  })();
  const purgeStarted = performance.now();
  try {
    for (;;) {
      const { count } = (await shape.http.post('/v1/purge', { before, limit: PURGE_LIMIT })) as { count: number };
      purged += count;
      if (count === 0) break;
    }
  } finally {
    probing = false;
    await probe;
  }
  Object.assign(m, {
    purged,
    purgeRate: purged / ((performance.now() - purgeStarted) / 1000),
    purgeSlowestHealthMs: slowest,
  });
  return m;
}
