// The floor of a Node beanstalkd server on this host: answers the probe's jackd commands from memory (put →
// INSERTED, reserve → RESERVED with a fixed body, delete → DELETED, use/watch/ignore), with no store and
// nothing durable. What a drained job costs here is Node's socket reading and writing alone; the probe
// (beanstalkd-protocol.ts, system `floor`) runs it beside beanstalkd and delayq. Not a beanstalkd: only the
// commands the probe sends, well formed.
// Usage: node bench/probes/beanstalkd-floor.mjs PORT
import { createServer } from 'node:net';
import { pathToFileURL } from 'node:url';

const port = Number(process.argv[2]);
const BODY = JSON.stringify({ d: 0, pad: 'x'.repeat(80) });
let lastNumber = 0;

/** The reply to one command line; null ends the connection (quit). */
function answer(line) {
  const name = line.split(' ', 1)[0];
  switch (name) {
    case 'reserve':
    case 'reserve-with-timeout':
      return `RESERVED ${++lastNumber} ${Buffer.byteLength(BODY)}\r\n${BODY}\r\n`;
    case 'delete':
      return 'DELETED\r\n';
    default:
      return jobFreeReply(name, line);
  }
}

/** The reply to a probe command that touches no job (beanstalkd-redis-floor.mjs too); null for quit. */
export function jobFreeReply(name, line) {
  switch (name) {
    case 'use':
      return `USING ${line.slice(4)}\r\n`;
    case 'watch':
      return 'WATCHING 2\r\n';
    case 'ignore':
      return 'WATCHING 1\r\n';
    case 'quit':
      return null;
    default:
      return 'UNKNOWN_COMMAND\r\n';
  }
}

/**
 * The first whole command in `buffered` (beanstalkd-redis-floor.mjs too): its line, a put's body (else null) and
 * what follows it; null until the whole command has come.
 */
export function takeFrame(buffered) {
  const end = buffered.indexOf('\r\n');
  if (end < 0) return null;
  const line = buffered.slice(0, end);
  if (!line.startsWith('put ')) return { line, body: null, rest: buffered.slice(end + 2) };
  const bytes = Number(line.split(' ')[4]);
  if (buffered.length < end + 2 + bytes + 2) return null;
  return { line, body: buffered.slice(end + 2, end + 2 + bytes), rest: buffered.slice(end + 2 + bytes + 2) };
}

// Run as a script (not imported for its helpers): serve.
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  createServer((socket) => {
    socket.setNoDelay(true);
    let buffered = '';
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      let out = '';
      for (let frame; (frame = takeFrame(buffered));) {
        buffered = frame.rest;
        if (frame.body !== null) {
          out += `INSERTED ${++lastNumber}\r\n`;
          continue;
        }
        const reply = answer(frame.line);
        if (reply === null) {
          if (out) socket.write(out);
          socket.end();
          return;
        }
        out += reply;
      }
      if (out) socket.write(out);
    });
  }).listen(port, '127.0.0.1');

  // Never outlive the probe that started us.
  process.on('SIGTERM', () => process.exit(0));
}
