/**
 * The beanstalkd wire format, incrementally: command lines end in CRLF and are at most 224 bytes; `put`
 * is followed by `<bytes>` of body and a CRLF. The parser only frames: it hands out command lines and
 * bodies and says what was wrong with the framing; the meaning of a line is commands.ts's.
 */
import { readU32 } from './command-line.js';

/** beanstalkd's LINE_BUF_SIZE: the longest command line, CRLF included. */
export const MAX_LINE_BYTES = 224;

export type Frame =
  | { kind: 'line'; line: string }
  /** A put and its body (`body` null when the body was not followed by CRLF: EXPECTED_CRLF). */
  | { kind: 'put'; line: string; args: PutArgs; body: Buffer | null }
  /** A put whose announced body is over the limit: the body was skipped (JOB_TOO_BIG). */
  | { kind: 'too-big'; line: string }
  /** MAX_LINE_BYTES without a CRLF (BAD_FORMAT): the line is dropped up to its CRLF, as beanstalkd 1.12 does. */
  | { kind: 'overlong' };

export interface PutArgs {
  pri: number;
  delay: number;
  ttr: number;
  bytes: number;
}

/**
 * Reads `put <pri> <delay> <ttr> <bytes>` as beanstalkd 1.12 does (command-line.ts): each a 32-bit unsigned
 * number after spaces; null when one is not (BAD_FORMAT). `trailing`: something follows `<bytes>`, which
 * beanstalkd refuses (BAD_FORMAT) only after checking the size, so a too-big body is still skipped.
 */
export function parsePutLine(line: string): (PutArgs & { trailing: boolean }) | null {
  if (!line.startsWith('put ')) return null;
  const pri = readU32(line.slice(4), false);
  const delay = pri && readU32(pri.rest, false);
  const ttr = delay && readU32(delay.rest, false);
  const bytes = ttr && readU32(ttr.rest, false);
  if (!bytes) return null;
  return { pri: pri!.value, delay: delay!.value, ttr: ttr!.value, bytes: bytes.value, trailing: bytes.rest !== '' };
}

export class WireParser {
  private buffer: Buffer = Buffer.alloc(0);
  /** A put waiting for its body (and CRLF). */
  private pendingPut: { line: string; args: PutArgs } | null = null;
  /** Bytes still to skip: a too-big body, or the rest of an overlong line. */
  private skipping: { bytes: number; frame: Frame } | null = null;
  private discardingLine = false;
  private readonly maxBodyBytes: number;

  constructor(maxBodyBytes: number) {
    this.maxBodyBytes = maxBodyBytes;
  }

  /** Feeds bytes in; returns the frames now complete, in order. */
  push(chunk: Buffer): Frame[] {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    const frames: Frame[] = [];
    for (;;) {
      if (this.skipping) {
        const n = Math.min(this.skipping.bytes, this.buffer.length);
        this.buffer = this.buffer.subarray(n);
        this.skipping.bytes -= n;
        if (this.skipping.bytes > 0) break;
        frames.push(this.skipping.frame);
        this.skipping = null;
        continue;
      }
      if (this.pendingPut) {
        const need = this.pendingPut.args.bytes + 2;
        if (this.buffer.length < need) break;
        const body = this.buffer.subarray(0, this.pendingPut.args.bytes);
        const crlf = this.buffer[need - 2] === 13 && this.buffer[need - 1] === 10;
        frames.push({
          kind: 'put',
          line: this.pendingPut.line,
          args: this.pendingPut.args,
          body: crlf ? Buffer.from(body) : null,
        });
        this.buffer = this.buffer.subarray(need);
        this.pendingPut = null;
        continue;
      }
      const end = this.buffer.indexOf('\r\n');
      if (this.discardingLine) {
        if (end < 0) {
          // Keep a trailing CR: its LF may come in the next chunk.
          this.buffer = this.buffer.subarray(Math.max(0, this.buffer.length - 1));
          break;
        }
        this.buffer = this.buffer.subarray(end + 2);
        this.discardingLine = false;
        continue;
      }
      if (end < 0 || end + 2 > MAX_LINE_BYTES) {
        if (end < 0 && this.buffer.length < MAX_LINE_BYTES) break;
        frames.push({ kind: 'overlong' });
        if (end >= 0) this.buffer = this.buffer.subarray(end + 2);
        else this.discardingLine = true;
        continue;
      }
      const line = this.buffer.toString('latin1', 0, end);
      this.buffer = this.buffer.subarray(end + 2);
      if (line.startsWith('put ')) {
        const args = parsePutLine(line);
        if (args && args.bytes > this.maxBodyBytes) {
          this.skipping = { bytes: args.bytes + 2, frame: { kind: 'too-big', line } };
          continue;
        }
        if (args && !args.trailing) {
          const { trailing: _, ...put } = args;
          this.pendingPut = { line, args: put };
          continue;
        }
      }
      frames.push({ kind: 'line', line });
    }
    return frames;
  }

  /** Bytes held while waiting for the rest of a frame. */
  get buffered(): number {
    return this.buffer.length;
  }
}
