// The floor of a durable Node beanstalkd server on Redis, on this host: the floor server's socket work
// (beanstalkd-floor.mjs) plus the least Redis work that keeps every job durable: a put stores the body and
// queues the id, a reserve moves ids from the ready list to a reserved set with a deadline, a delete removes
// both; the commands of one event-loop turn share one script call per kind, as delayq's do. No history,
// priorities, stats or events: a lower bound on what any store keeping jobs in Redis pays per job, not a
// design. The bench's bs-drain scenario (bench/subjects/redis-floor-subject.ts) and the probe
// (beanstalkd-protocol.ts, system `redis-floor`) run it beside beanstalkd and delayq.
// Only the commands the probe sends, well formed.
// Usage: node bench/probes/beanstalkd-redis-floor.mjs PORT REDIS_PORT
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { jobFreeReply, takeFrame } from './beanstalkd-floor.mjs';

const [port, redisPort] = process.argv.slice(2).map(Number);
const redis = new Redis({ host: '127.0.0.1', port: redisPort });
redis.defineCommand('putJobs', {
  numberOfKeys: 0,
  lua: `local ids = {}
for i = 1, #ARGV do
  local id = redis.call('INCR', 'floor:seq')
  redis.call('HSET', 'floor:jobs', id, ARGV[i])
  redis.call('RPUSH', 'floor:ready', id)
  ids[i] = id
end
return ids`,
});
redis.defineCommand('reserveJobs', {
  numberOfKeys: 0,
  lua: `local ids = redis.call('LPOP', 'floor:ready', ARGV[1])
if not ids then return {} end
local bodies = redis.call('HMGET', 'floor:jobs', unpack(ids))
local out = {}
for i = 1, #ids do
  redis.call('ZADD', 'floor:reserved', ARGV[2], ids[i])
  out[#out + 1] = ids[i]
  out[#out + 1] = bodies[i]
end
return out`,
});
redis.defineCommand('deleteJobs', {
  numberOfKeys: 0,
  lua: `local out = {}
for i = 1, #ARGV do
  out[i] = redis.call('ZREM', 'floor:reserved', ARGV[i])
  if out[i] == 1 then redis.call('HDEL', 'floor:jobs', ARGV[i]) end
end
return out`,
});

/** Calls of one kind made during one event-loop turn, sent as one script call. */
function batcher(send) {
  let pending = null;
  return (arg) =>
    new Promise((resolve, reject) => {
      if (!pending) {
        const batch = (pending = []);
        setImmediate(() => {
          pending = null;
          send(batch.map((p) => p.arg)).then(
            (replies) => batch.forEach((p, i) => p.resolve(replies[i])),
            (err) => batch.forEach((p) => p.reject(err)),
          );
        });
      }
      pending.push({ arg, resolve, reject });
    });
}

const put = batcher((bodies) => redis.putJobs(...bodies));
const del = batcher((ids) => redis.deleteJobs(...ids));
const reserveOne = batcher(async (asks) => {
  const flat = await redis.reserveJobs(asks.length, Date.now() + 30_000);
  const got = [];
  for (let i = 0; i < flat.length; i += 2) got.push([flat[i], flat[i + 1]]);
  return asks.map((_, i) => got[i] ?? null);
});
/** A job, or null after a second with none (the probe's reserve-with-timeout 1). */
async function reserve() {
  for (const until = Date.now() + 1000; Date.now() < until;) {
    const job = await reserveOne(0);
    if (job) return job;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return null;
}

/** The reply to one command line: a string, a promise of one, or null (quit). */
function answer(line) {
  const name = line.split(' ', 1)[0];
  switch (name) {
    case 'reserve':
    case 'reserve-with-timeout':
      return reserve().then((job) =>
        job ? `RESERVED ${job[0]} ${Buffer.byteLength(job[1])}\r\n${job[1]}\r\n` : 'TIMED_OUT\r\n',
      );
    case 'delete':
      return del(line.slice(7)).then((n) => (n === 1 ? 'DELETED\r\n' : 'NOT_FOUND\r\n'));
    default:
      return jobFreeReply(name, line);
  }
}

createServer((socket) => {
  socket.setNoDelay(true);
  let buffered = '';
  // Replies in command order: each connection's chain of pending answers.
  let chain = Promise.resolve();
  const send = (reply) => {
    chain = chain
      .then(() => reply)
      .then((text) => {
        if (text === null) socket.end();
        else if (!socket.destroyed) socket.write(text);
      });
  };
  socket.on('error', () => undefined);
  socket.on('data', (chunk) => {
    buffered += chunk.toString('latin1');
    for (let frame; (frame = takeFrame(buffered));) {
      buffered = frame.rest;
      if (frame.body !== null) send(put(frame.body).then((id) => `INSERTED ${id}\r\n`));
      else send(answer(frame.line));
    }
  });
}).listen(port, '127.0.0.1');

// Never outlive the probe that started us.
process.on('SIGTERM', () => process.exit(0));
