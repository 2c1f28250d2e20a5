import { connect, type Socket } from 'node:net';

/** A bare TCP session: send bytes, read back exactly what the server answers. */
export class RawSession {
  private buffer = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  closed = false;
  /** The server ended its side (with allowHalfOpen the socket stays open for writing until closed here). */
  ended = false;
  readonly socket: Socket;
  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.wake();
    });
    socket.on('end', () => {
      this.ended = true;
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  /** `allowHalfOpen`: the client keeps its side open when the server ends its own (as some clients do). */
  static open(port: number, options: { allowHalfOpen?: boolean } = {}): Promise<RawSession> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: options.allowHalfOpen ?? false }, () =>
        resolve(new RawSession(socket)),
      );
      socket.once('error', reject);
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  send(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** Waits for `n` bytes (or the close), then takes them. */
  async take(n: number, timeoutMs = 5000): Promise<Buffer> {
    const giveUp = Date.now() + timeoutMs;
    while (this.buffer.length < n && !this.closed) {
      if (Date.now() > giveUp)
        throw new Error(`timed out waiting for ${n} bytes; have ${JSON.stringify(this.buffer.toString('latin1'))}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
    const out = this.buffer.subarray(0, n);
    this.buffer = this.buffer.subarray(n);
    return out;
  }

  /** The next CRLF-terminated reply line, without the CRLF. */
  async line(timeoutMs = 5000): Promise<string> {
    const giveUp = Date.now() + timeoutMs;
    for (;;) {
      const end = this.buffer.indexOf('\r\n');
      if (end >= 0) return (await this.take(end + 2)).subarray(0, end).toString('latin1');
      if (this.closed) throw new Error('closed');
      if (Date.now() > giveUp)
        throw new Error(`timed out waiting for a line; have ${JSON.stringify(this.buffer.toString('latin1'))}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  /** A command and its one-line reply. */
  async ask(command: string | Buffer): Promise<string> {
    this.send(typeof command === 'string' ? `${command}\r\n` : command);
    return this.line();
  }

  /** A reply with a body (RESERVED/FOUND/OK): the line and the body. */
  async withBody(): Promise<{ line: string; body: Buffer }> {
    const line = await this.line();
    const bytes = Number(line.split(' ').pop());
    const body = await this.take(bytes + 2);
    return { line, body: body.subarray(0, bytes) };
  }

  close(): void {
    this.socket.destroy();
  }
}
