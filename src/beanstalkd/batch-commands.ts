/**
 * Runs of one command pipelined on one connection and read together, run as one: puts as one push batch,
 * deletes settled together (their finishes share the store's per-turn batch, as HTTP batch acks do),
 * reserves as one store reserve. Each command keeps its own reply, the one it would get alone.
 */
import type { Reply } from './replies.js';
import type { ConnectionState as Connection } from './connection-state.js';
import { del, handOver, pushInputOf, put, putRefusal, reserve } from './job-commands.js';
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
 * `count` reserves in a row: one store call for them all, each job then answered as a lone reserve would be;
 * reserves the try left unserved wait one after another, as beanstalkd runs them (and answer DEADLINE_SOON
 * as a lone reserve would, job-commands.ts).
 */
export async function reserveMany(
  conn: Connection,
  count: number,
  timeoutSeconds: number | null,
  answer: Answer,
): Promise<Reply[]> {
  conn.isWorker = true;
  const replies: Reply[] = [];
  if (!conn.isGone) {
    for (const r of await conn.ctx.reserves.tryReserve(conn.watched, count))
      replies.push(await answer(() => handOver(conn, r)));
  }
  while (replies.length < count) replies.push(await answer(() => reserve(conn, timeoutSeconds)));
  return replies;
}
