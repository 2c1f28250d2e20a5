import type { Socket } from 'node:net';
import type { Reply } from './replies.js';

interface Slot {
  reply: Reply;
  ready: boolean;
}

/**
 * One connection's replies, in command order whatever order the commands end in. While commands are still
 * outstanding, the replies that became writable during one event-loop turn go out in one socket write, so a
 * pipeline's answers cost one syscall, not one each; the last outstanding reply is written at once. A 'quit'
 * reply writes what came before it, then closes the connection.
 */
export class ReplyQueue {
  private readonly socket: Socket;
  /** Told how many replies left the queue (the connection resumes reading under its bound). */
  private readonly onTaken: (count: number) => void;
  private slots: Slot[] = [];
  private head = 0;
  private out: (string | Buffer)[] = [];
  private hasBuffer = false;
  private flushing = false;
  private ended = false;

  constructor(socket: Socket, onTaken: (count: number) => void) {
    this.socket = socket;
    this.onTaken = onTaken;
  }

  /** Places `count` replies at the end of the order; the returned function fills them (once, all at once). */
  add(count: number): (replies: readonly Reply[]) => void {
    const start = this.slots.length;
    for (let i = 0; i < count; i++) this.slots.push({ reply: null, ready: false });
    // Compaction moves slots down; a filler finds its own by identity, not by index.
    const mine = this.slots.slice(start);
    return (replies) => {
      mine.forEach((slot, i) => {
        slot.reply = replies[i] ?? null;
        slot.ready = true;
      });
      this.take();
    };
  }

  private take(): void {
    let taken = 0;
    while (this.head < this.slots.length && this.slots[this.head]!.ready) {
      const { reply } = this.slots[this.head++]!;
      taken++;
      if (this.ended || reply === null) continue;
      if (reply === 'quit') {
        // Closed outright once the replies before it are written, as beanstalkd closes: the close hands back
        // the jobs the connection holds at once, whether or not the client closes its side.
        this.ended = true;
        this.flush();
        this.socket.destroySoon();
        continue;
      }
      this.out.push(reply);
      if (typeof reply !== 'string') this.hasBuffer = true;
    }
    if (this.head > 1024 && this.head * 2 > this.slots.length) {
      this.slots = this.slots.slice(this.head);
      this.head = 0;
    }
    // Nothing outstanding: write now. Replies still to come: wait for the turn's end, they may come with them.
    if (this.head === this.slots.length) this.flush();
    else if (this.out.length && !this.flushing) {
      this.flushing = true;
      setImmediate(() => this.flush());
    }
    if (taken) this.onTaken(taken);
  }

  private flush(): void {
    this.flushing = false;
    const out = this.out;
    if (out.length === 0) return;
    this.out = [];
    const hasBuffer = this.hasBuffer;
    this.hasBuffer = false;
    if (this.socket.destroyed) return;
    if (out.length === 1) this.socket.write(out[0]!);
    else if (!hasBuffer) this.socket.write((out as string[]).join(''));
    else this.socket.write(Buffer.concat(out.map((r) => (typeof r === 'string' ? Buffer.from(r) : r))));
  }

  /** True once a quit was answered: nothing more is read or written. */
  get isEnded(): boolean {
    return this.ended;
  }
}
