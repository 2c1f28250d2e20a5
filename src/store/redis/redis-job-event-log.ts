import { compareEventIds, type JobEvent, type NewJobEvent } from '../../core/job-event.js';
import type { JobEventLog } from '../job-event-log.js';
import type { RedisClient } from './connection.js';
import { runScript } from './scripts.js';

interface Follower {
  listener: (event: JobEvent) => void;
  /** The last event this follower got: the reader skips anything up to it. */
  lastSeen: string;
}

type StreamEntries = [id: string, fields: string[]][];

/** Most events one append-events call carries. */
const APPEND_CHUNK = 500;
/**
 * How long an event waits for others before they go out together: one script call per window, not per
 * event-loop turn, when jobs end one at a time (each call has a fixed cost in Redis and in this process).
 */
const APPEND_WINDOW_MS = 5;

/**
 * The job event log on Redis: one stream, `{prefix:events}`, trimmed to about `maxLength` entries
 * (XADD MAXLEN ~), shared by every process on the Redis. Appends wait up to APPEND_WINDOW_MS for others and
 * go out together as one script call (lua/append-events.lua), not one command each. While this process has
 * followers, one reader on a dedicated connection (XREAD BLOCK) fans each entry out to them; a follower
 * resuming after an id first reads the gap with XRANGE. A stream rather than pub/sub because it keeps events
 * for a follower that reconnects (Last-Event-ID) and for one that joins between an event and its own
 * subscription.
 */
export class RedisJobEventLog implements JobEventLog {
  private readonly client: () => RedisClient | undefined;
  private readonly key: string;
  private readonly maxLength: number;
  private readonly blockMs: number;
  private pending: NewJobEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly followers = new Set<Follower>();
  private reader: RedisClient | undefined;
  /** The id of the last entry the reader fanned out (or the stream's last one when it started). */
  private cursor = '0-0';
  private starting: Promise<void> | undefined;
  dropped = 0;

  constructor(client: () => RedisClient | undefined, key: string, maxLength: number, blockMs: number) {
    this.client = client;
    this.key = key;
    this.maxLength = maxLength;
    this.blockMs = blockMs;
  }

  append(events: readonly NewJobEvent[]): void {
    for (const e of events) this.pending.push(e);
    if (this.pending.length >= APPEND_CHUNK) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), APPEND_WINDOW_MS);
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const events = this.pending;
    this.pending = [];
    const client = this.client();
    if (!client) {
      this.dropped += events.length;
      return;
    }
    // Chunks bound one script's run; a failed chunk may have appended some: the count is of events perhaps lost.
    for (let i = 0; i < events.length; i += APPEND_CHUNK) {
      const chunk = events.slice(i, i + APPEND_CHUNK);
      const entries = chunk.map((e) => JSON.stringify(e));
      runScript(client, 'append-events', [this.key], [this.maxLength, ...entries]).catch(() => {
        this.dropped += chunk.length;
      });
    }
  }

  async follow(afterId: string | null, listener: (event: JobEvent) => void): Promise<() => void> {
    await this.startReader();
    const follower: Follower = { listener, lastSeen: afterId ?? this.cursor };
    // Read the gap between afterId and where the reader is, until no entry lies between them; then the
    // follower joins synchronously, so the reader's next entries are exactly the ones after both.
    while (compareEventIds(this.cursor, follower.lastSeen) > 0) {
      const client = this.client();
      if (!client) break;
      const upTo = this.cursor;
      const entries = (await client.xrange(this.key, `(${follower.lastSeen}`, upTo, 'COUNT', 1000)) as StreamEntries;
      for (const [id, fields] of entries) deliver(follower, id, fields);
      if (entries.length === 0) follower.lastSeen = upTo; // trimmed away: the follower starts at the oldest kept
    }
    this.followers.add(follower);
    return () => {
      this.followers.delete(follower);
      if (this.followers.size === 0) this.stopReader();
    };
  }

  private startReader(): Promise<void> {
    if (this.reader) return this.starting ?? Promise.resolve();
    const client = this.client();
    if (!client) return Promise.reject(new Error('the Redis store is not open'));
    const reader = (client as { duplicate(): RedisClient }).duplicate();
    reader.on('error', () => undefined);
    this.reader = reader;
    this.starting = (async () => {
      const last = (await client.xrevrange(this.key, '+', '-', 'COUNT', 1)) as StreamEntries;
      this.cursor = last[0]?.[0] ?? '0-0';
      void this.read(reader);
    })();
    this.starting.catch(() => this.stopReader());
    return this.starting;
  }

  private async read(reader: RedisClient): Promise<void> {
    while (this.reader === reader) {
      let reply: [string, StreamEntries][] | null;
      try {
        reply = (await reader.xread('COUNT', 500, 'BLOCK', this.blockMs, 'STREAMS', this.key, this.cursor)) as
          [string, StreamEntries][] | null;
      } catch {
        if (this.reader !== reader) return;
        await new Promise((resolve) => setTimeout(resolve, this.blockMs));
        continue;
      }
      if (this.reader !== reader) return;
      for (const [id, fields] of reply?.[0]?.[1] ?? []) {
        this.cursor = id;
        for (const follower of this.followers)
          if (compareEventIds(id, follower.lastSeen) > 0) deliver(follower, id, fields);
      }
    }
  }

  private stopReader(): void {
    const reader = this.reader;
    this.reader = undefined;
    this.starting = undefined;
    reader?.disconnect();
  }

  /** Sends what is pending, drops every follower and the reader (the store is closing). */
  close(): void {
    this.flush();
    this.followers.clear();
    this.stopReader();
  }
}

function deliver(follower: Follower, id: string, fields: string[]): void {
  follower.lastSeen = id;
  const text = fields[fields.indexOf('e') + 1];
  if (text === undefined) return;
  try {
    follower.listener({ ...(JSON.parse(text) as NewJobEvent), eventId: id });
  } catch {
    /* a malformed entry or a follower's failure is not the reader's */
  }
}
