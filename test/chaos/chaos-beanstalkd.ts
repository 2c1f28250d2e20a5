// Child-process beanstalkd client of the chaos suite: `loops` connections, each putting a job with a body of its
// own, reserving one and deleting it, over and over; it reconnects after the server died. One JSON event per
// acknowledged put (its number and body), reservation (number, body) and delete, so the parent can tell a number
// given twice, a number that named another job, and a job held by two connections at once.
// argv[2]: JSON BeanstalkdClientSpec. Stops on SIGTERM.
import { connect, type Socket } from 'node:net';

export interface BeanstalkdClientSpec {
  port: number;
  tube: string;
  /** Bodies start with it, so each is unique in the run. */
  prefix: string;
  loops: number;
  /** TTR of each put, seconds. */
  ttrSec: number;
}

const spec = JSON.parse(process.argv[2]!) as BeanstalkdClientSpec;
let stopping = false;
process.once('SIGTERM', () => (stopping = true));
const out = (o: object): void => void process.stdout.write(JSON.stringify(o) + '\n');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One connection: send a command, read its reply line (and body). Rejects when the connection ends. */
class Session {
  private buffer = Buffer.alloc(0);
  private wake: (() => void) | undefined;
  private closed = false;
  private readonly socket: Socket;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.wake?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake?.();
    });
    socket.on('error', () => undefined);
  }

  static open(port: number): Promise<Session> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new Session(socket)));
      socket.once('error', reject);
    });
  }

  private async take(n: number): Promise<Buffer> {
    while (this.buffer.length < n) {
      if (this.closed) throw new Error('connection closed');
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    const taken = this.buffer.subarray(0, n);
    this.buffer = this.buffer.subarray(n);
    return taken;
  }

  async line(): Promise<string> {
    for (;;) {
      const end = this.buffer.indexOf('\r\n');
      if (end >= 0) return (await this.take(end + 2)).subarray(0, end).toString();
      if (this.closed) throw new Error('connection closed');
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  async ask(command: string): Promise<string> {
    this.socket.write(`${command}\r\n`);
    return this.line();
  }

  async body(bytes: number): Promise<string> {
    return (await this.take(bytes + 2)).subarray(0, bytes).toString();
  }

  close(): void {
    this.socket.destroy();
  }
}

async function loop(n: number): Promise<void> {
  let seq = 0;
  while (!stopping) {
    let session: Session | undefined;
    try {
      session = await Session.open(spec.port);
      await session.ask(`use ${spec.tube}`);
      await session.ask(`watch ${spec.tube}`);
      await session.ask('ignore default');
      while (!stopping) {
        const body = `${spec.prefix}-${n}-${seq++}`;
        const put = await session.ask(`put 0 0 ${spec.ttrSec} ${body.length}\r\n${body}`);
        if (put.startsWith('INSERTED ')) out({ type: 'bput', number: Number(put.split(' ')[1]), body, at: Date.now() });
        const reserved = await session.ask('reserve-with-timeout 1');
        if (!reserved.startsWith('RESERVED ')) continue;
        const [, number, bytes] = reserved.split(' ');
        const got = await session.body(Number(bytes));
        out({ type: 'breserve', number: Number(number), body: got, at: Date.now(), loop: n });
        const deleted = await session.ask(`delete ${number}`);
        const type = deleted === 'DELETED' ? 'bdelete' : 'bdelete-refused';
        out({ type, number: Number(number), answer: deleted, at: Date.now() });
      }
    } catch {
      /* the server died (or the store is down): connect again */
    } finally {
      session?.close();
    }
    await sleep(200);
  }
}

await Promise.all(Array.from({ length: spec.loops }, (_, n) => loop(n)));
process.exit(0);
