/**
 * Runs of one command pipelined on one connection and read together, run as one: puts as one push batch,
 * deletes settled together (their finishes share the store's per-turn batch, as HTTP batch acks do),
 * reserves as one store reserve. Each command keeps its own reply, the one it would get alone.
 */
import type { Reply } from './replies.js';
import type { ConnectionState as Connection } from './connection-state.js';
import { deadlineSoon, del, handOver, pushInputOf, put, putRefusal, reserve } from './job-commands.js';
import type { PutArgs } from './wire-parser.js';

/** A reply, or what to answer for a command that threw (connection.ts decides the wording). */
export type Answer = (run: () => Promise<Reply>) => Promise<Reply>;

/** Puts into the used tube as one push batch; a batch refused for one job's sake falls back to one push each. */
export async function putMany(conn: Connection, puts: readonly { args: PutArgs; body: Buffer }[]): Promise<Reply[]> {
  conn.isProducer = true;
  const { service, numbers } = conn.ctx;
  let results;
  try {
    results = await service.pushBatch(puts.map((p) => pushInputOf(conn, p.args, p.body)));
  } catch (err) {
    // A validation error names one job; the others must still go in, each with its own answer.
    if (putRefusal(err) === null) throw err;
    return Promise.all(puts.map((p) => put(conn, p.args, p.body)));
  }
  conn.ctx.totalJobs += results.length;
  const jobNumbers = await Promise.all(results.map((r) => numbers.numberOf(r.job.id)));
  return jobNumbers.map((n) => `INSERTED ${n}\r\n`);
}

/** Deletes, each its own outcome (NOT_FOUND for a number this connection cannot delete), all at once. */
export function deleteMany(conn: Connection, jobNumbers: readonly number[], answer: Answer): Promise<Reply[]> {
  return Promise.all(jobNumbers.map((n) => answer(() => del(conn, n))));
}

/**
 * `count` reserves in a row: one store call for them all when none of this connection's jobs is near its
 * deadline, each then answered as a lone reserve would be. A job taken for a reserve that must answer
 * DEADLINE_SOON instead (an earlier job of the run has a TTR within the margin) is given back at once;
 * reserves the try left unserved wait one after another, as beanstalkd runs them.
 */
export async function reserveMany(
  conn: Connection,
  count: number,
  timeoutSeconds: number | null,
  answer: Answer,
): Promise<Reply[]> {
  conn.isWorker = true;
  const { service } = conn.ctx;
  const replies: Reply[] = [];
  if (!deadlineSoon(conn, service.clock.now()) && !conn.isGone) {
    const got = await conn.ctx.reserves.tryReserve(conn.watched, count);
    const back: Promise<unknown>[] = [];
    let soon = false;
    for (const r of got) {
      if (soon) {
        back.push(service.release(r.job.id, r.token).catch(() => undefined));
        continue;
      }
      replies.push(await answer(() => handOver(conn, r)));
      soon = deadlineSoon(conn, service.clock.now());
    }
    await Promise.all(back);
  }
  while (replies.length < count) replies.push(await answer(() => reserve(conn, timeoutSeconds)));
  return replies;
}
