/** The job commands: put, reserve, delete, release, bury, touch, kick, peek (mapping: docs/beanstalkd.md). */
import { isDelayqError } from '../core/errors.js';
import type { Job, Reservation } from '../core/job.js';
import type { PushInput } from '../core/job-input.js';
import type { PeekState } from '../store/peek-order.js';
import { LIMITS } from '../core/limits.js';
import { BAD_FORMAT, NOT_FOUND, type Reply } from './replies.js';
import type { ConnectionState as Connection, Held } from './connection-state.js';
import { bodyFromBytes, bytesFromBody, priorityFromPri } from './job-codec.js';
import type { PutArgs } from './wire-parser.js';

/** beanstalkd's safety margin: a reserve while a held job's TTR ends within it, and nothing is ready, answers DEADLINE_SOON. */
export const DEADLINE_SOON_MS = 1000;
/** A TTR lapse puts the job back at once, as many times as it happens (up to delayq's attempt limit). */
const BEANSTALKD_RETRY = { maxAttempts: LIMITS.maxAttemptsMax, backoff: { type: 'fixed' as const, delayMs: 0 } };
/** Most jobs one kick moves. */
const KICK_MAX = 1000;

/** The refusals that mean "no such job for you" (NOT_FOUND) rather than a broken server. */
function isGoneJob(err: unknown): boolean {
  return (
    isDelayqError(err) &&
    (err.code === 'E_NOT_FOUND' || err.code === 'E_WRONG_STATE' || err.code === 'E_TOKEN_MISMATCH')
  );
}

async function orNotFound(run: () => Promise<Reply>): Promise<Reply> {
  try {
    return await run();
  } catch (err) {
    if (isGoneJob(err)) return NOT_FOUND;
    throw err;
  }
}

/** `<WORD> <number> <bytes>\r\n<body>\r\n` (RESERVED, FOUND); a text body stays a string (no copy into a Buffer). */
export async function withBody(word: string, conn: Connection, job: Job, number?: number): Promise<Reply> {
  const n = number ?? (await conn.ctx.numbers.numberOf(job.id));
  const body: unknown = JSON.parse(job.body);
  if (typeof body === 'string') return `${word} ${n} ${Buffer.byteLength(body)}\r\n${body}\r\n`;
  const bytes = bytesFromBody(body);
  return Buffer.concat([Buffer.from(`${word} ${n} ${bytes.length}\r\n`), bytes, Buffer.from('\r\n')]);
}

/** What a put asks delayq to push: the job in the connection's used tube. */
export function pushInputOf(conn: Connection, args: PutArgs, body: Buffer): PushInput {
  return {
    topic: conn.used,
    body: bodyFromBytes(body),
    priority: priorityFromPri(args.pri),
    delayMs: Math.min(args.delay * 1000, LIMITS.maxDelayMs),
    ttrMs: Math.min(Math.max(args.ttr, 1) * 1000, LIMITS.ttrMaxMs),
    retry: BEANSTALKD_RETRY,
  };
}

/** The refusals of a push that are the client's fault, as beanstalkd words them (null: not one of them). */
export function putRefusal(err: unknown): Reply {
  // The body's JSON form may be longer than its bytes (escapes, base64).
  if (isDelayqError(err) && err.code === 'E_BODY_TOO_LARGE') return 'JOB_TOO_BIG\r\n';
  if (isDelayqError(err) && err.code === 'E_VALIDATION') return BAD_FORMAT;
  return null;
}

export async function put(conn: Connection, args: PutArgs, body: Buffer): Promise<Reply> {
  conn.isProducer = true;
  let job: Job;
  try {
    ({ job } = await conn.ctx.service.push(pushInputOf(conn, args, body)));
  } catch (err) {
    const refusal = putRefusal(err);
    if (refusal) return refusal;
    throw err;
  }
  conn.ctx.totalJobs++;
  return `INSERTED ${await conn.ctx.numbers.numberOf(job.id)}\r\n`;
}

/** Forgets held jobs whose TTR ran out (delayq took them back); true when one ends within the margin. */
export function deadlineSoon(conn: Connection, now: number): boolean {
  let soon = false;
  for (const [n, h] of conn.held) {
    if (h.deadlineAt <= now) {
      conn.held.delete(n);
      conn.ctx.jobTimeouts++;
    } else if (h.deadlineAt - now <= DEADLINE_SOON_MS) soon = true;
  }
  return soon;
}

/**
 * reserve and reserve-with-timeout. As in beanstalkd, a ready job is handed out even while a job this
 * connection holds is within its TTR's safety margin; only when none is ready does such a reserve answer
 * DEADLINE_SOON (at once, or when the margin comes while it waits).
 */
export async function reserve(conn: Connection, timeoutSeconds: number | null): Promise<Reply> {
  conn.isWorker = true;
  const { service } = conn.ctx;
  const giveUpAt = timeoutSeconds === null ? Number.POSITIVE_INFINITY : performance.now() + timeoutSeconds * 1000;
  for (;;) {
    // A try shared with the other connections of this turn; if nothing was ready, wait for a wake-up (pushes,
    // promotions, releases) and try again, so the connections woken together share one store call too.
    const epoch = service.readyEpoch;
    const [got] = await conn.ctx.reserves.tryReserve(conn.watched, 1);
    if (got) return handOver(conn, got);
    if (conn.isGone) return null;
    const now = service.clock.now();
    if (deadlineSoon(conn, now)) return 'DEADLINE_SOON\r\n';
    let untilSoon = Number.POSITIVE_INFINITY;
    for (const h of conn.held.values()) untilSoon = Math.min(untilSoon, h.deadlineAt - DEADLINE_SOON_MS - now);
    const waitMs = Math.max(0, Math.min(giveUpAt - performance.now(), untilSoon, LIMITS.reserveMaxWaitMs));
    if (waitMs >= 1) {
      conn.isWaiting = true;
      try {
        await service.waitReady(conn.watched, Math.floor(waitMs), conn.gone.signal, epoch);
      } finally {
        conn.isWaiting = false;
      }
      if (conn.isGone) return null;
      continue;
    }
    if (performance.now() >= giveUpAt) return 'TIMED_OUT\r\n';
  }
}

/** A reservation this connection now holds; its RESERVED reply (none when the client has gone meanwhile). */
export async function handOver(conn: Connection, got: Reservation): Promise<Reply> {
  const number = await conn.ctx.numbers.numberOf(got.job.id);
  conn.held.set(number, { id: got.job.id, token: got.token, deadlineAt: got.deadlineAt });
  // Gone while reserving: the close handler releases what it holds once this command has ended.
  if (conn.isGone) return null;
  return withBody('RESERVED', conn, got.job, number);
}

/** reserve-job: a ready, delayed or buried job by number (a reserved one answers NOT_FOUND, as in beanstalkd). */
export async function reserveJob(conn: Connection, number: number): Promise<Reply> {
  conn.isWorker = true;
  const id = await conn.ctx.numbers.idOf(number);
  if (id === null) return NOT_FOUND;
  return orNotFound(async () => {
    const got = await conn.ctx.service.reserveJob(id);
    conn.held.set(number, { id, token: got.token, deadlineAt: got.deadlineAt });
    // Gone meanwhile: the close handler releases what it holds once this command has ended.
    if (conn.isGone) return null;
    return withBody('RESERVED', conn, got.job);
  });
}

function held(conn: Connection, number: number): Held | undefined {
  const h = conn.held.get(number);
  if (h && h.deadlineAt <= conn.ctx.service.clock.now()) {
    conn.held.delete(number);
    conn.ctx.jobTimeouts++;
    return undefined;
  }
  return h;
}

/** A held job's command: NOT_FOUND unless this connection holds it (and its TTR has not lapsed). */
async function onHeld(conn: Connection, number: number, run: (h: Held) => Promise<Reply>): Promise<Reply> {
  const h = held(conn, number);
  if (!h) return NOT_FOUND;
  return orNotFound(async () => {
    try {
      return await run(h);
    } catch (err) {
      if (isGoneJob(err)) conn.held.delete(number);
      throw err;
    }
  });
}

/**
 * Counts a delete in its tube's cmd-delete; a tube the deleting connection neither uses nor watches may have
 * lost its last job, and with it its counters (context.ts forgetGone).
 */
function deleted(conn: Connection, tube: string): Promise<void> | undefined {
  conn.ctx.tube(tube).deletes++;
  return conn.used === tube || conn.watched.includes(tube) ? undefined : conn.ctx.forgetGone([tube]);
}

export async function del(conn: Connection, number: number): Promise<Reply> {
  const { service, numbers } = conn.ctx;
  const h = held(conn, number);
  if (h) {
    // The common case, a consumer deleting the job it holds: one store call, no lookups.
    conn.held.delete(number);
    try {
      const job = await service.finish(h.id, h.token);
      const check = deleted(conn, job.topic);
      if (check) await check;
      return 'DELETED\r\n';
    } catch (err) {
      if (isGoneJob(err)) return NOT_FOUND;
      throw err;
    }
  }
  const id = await numbers.idOf(number);
  if (id === null) return NOT_FOUND;
  return orNotFound(async () => {
    const job = await service.get(id);
    if (job.state === 'dead')
      await service.redrive({ ids: [id] }); // a buried job: dead → ready → cancelled
    else if (job.state !== 'ready' && job.state !== 'delayed') return NOT_FOUND;
    await service.cancel(id, 'deleted over beanstalkd');
    await deleted(conn, job.topic);
    return 'DELETED\r\n';
  });
}

export function release(conn: Connection, number: number, pri: number, delay: number): Promise<Reply> {
  return onHeld(conn, number, async (h) => {
    await conn.ctx.service.release(h.id, h.token, {
      priority: priorityFromPri(pri),
      ...(delay > 0 ? { delayMs: Math.min(delay * 1000, LIMITS.maxDelayMs) } : {}),
    });
    conn.held.delete(number);
    return 'RELEASED\r\n';
  });
}

export function bury(conn: Connection, number: number, pri: number): Promise<Reply> {
  return onHeld(conn, number, async (h) => {
    await conn.ctx.service.fail(h.id, h.token, {
      bury: true,
      error: 'buried over beanstalkd',
      priority: priorityFromPri(pri),
    });
    conn.held.delete(number);
    return 'BURIED\r\n';
  });
}

export function touch(conn: Connection, number: number): Promise<Reply> {
  return onHeld(conn, number, async (h) => {
    const job = await conn.ctx.service.touch(h.id, h.token);
    h.deadlineAt = job.deadlineAt ?? h.deadlineAt;
    return 'TOUCHED\r\n';
  });
}

/** The job of a number, unless it ended (finished, cancelled, expired: deleted, for beanstalkd). */
async function liveJob(conn: Connection, number: number): Promise<Job | null> {
  const id = await conn.ctx.numbers.idOf(number);
  if (id === null) return null;
  try {
    const job = await conn.ctx.service.get(id);
    return ['ready', 'delayed', 'reserved', 'dead'].includes(job.state) ? job : null;
  } catch (err) {
    if (isGoneJob(err)) return null;
    throw err;
  }
}

export async function peekJob(conn: Connection, number: number): Promise<Reply> {
  const job = await liveJob(conn, number);
  return job ? withBody('FOUND', conn, job) : NOT_FOUND;
}

/** peek-ready (the job reserve takes next), peek-delayed (due first) or peek-buried (buried first) of the used tube. */
export async function peekState(conn: Connection, state: PeekState): Promise<Reply> {
  const next = await conn.ctx.service.topics.peekNext(conn.used, state);
  return next ? withBody('FOUND', conn, next) : NOT_FOUND;
}

/** kick: the used tube's buried jobs, oldest buried first; when it has none, its delayed jobs, due first (as beanstalkd). */
export async function kick(conn: Connection, bound: number): Promise<Reply> {
  const { service } = conn.ctx;
  const limit = Math.min(bound, KICK_MAX);
  if (limit === 0) return 'KICKED 0\r\n';
  const counts = (await service.topics.stats()).find((s) => s.topic === conn.used)?.counts;
  if (counts && counts.dead > 0) return `KICKED ${await service.redrive({ topic: conn.used, limit })}\r\n`;
  const { jobs } = await service.listings.listDue({ topic: conn.used, limit });
  let kicked = 0;
  for (const job of jobs) {
    if ((await orNotFound(async () => (await service.reschedule(job.id, { delayMs: 0 }), 'ok'))) === 'ok') kicked++;
  }
  return `KICKED ${kicked}\r\n`;
}

export async function kickJob(conn: Connection, number: number): Promise<Reply> {
  const job = await liveJob(conn, number);
  if (!job) return NOT_FOUND;
  return orNotFound(async () => {
    if (job.state === 'dead') return (await conn.ctx.service.redrive({ ids: [job.id] })) > 0 ? 'KICKED\r\n' : NOT_FOUND;
    if (job.state !== 'delayed') return NOT_FOUND;
    await conn.ctx.service.reschedule(job.id, { delayMs: 0 });
    return 'KICKED\r\n';
  });
}
