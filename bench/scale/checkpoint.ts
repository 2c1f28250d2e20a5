// What the scale run records at each backlog of a shape, in this order: memory (the backlog exactly as
// filled), the reads (each several times: median and max), the 1k due/s stream's lateness beside the
// backlog, the push rates (their jobs join the backlog), then the operations (a restart until /ready answers
// 200; on a journal shape a wipe of Redis and the journal's restore).
import { median, sleep } from '../lib.js';
import { lateness } from '../scenarios.js';
import { rssBytes } from '../servers.js';
import { redisCpuMs, usedMemory } from '../subjects/delayq-subject.js';
import { HttpStatusError } from '../subjects/plain-http.js';
import { JobPusher, type KnownJob } from './jobs.js';
import type { ScaleCounts } from './options.js';
import type { ScaleShape } from './shapes.js';
import { StreamSubject } from './stream.js';

const DAY = 86_400_000;
export const STREAM_RATE = 1000;
export const STREAM_LEAD_MS = 1000;

export interface Read {
  id: string;
  label: string;
  path: (job: KnownJob | undefined, now: number) => string | undefined;
  /** A read a build may not offer yet: a 404 leaves it out instead of failing the run. */
  optional?: boolean;
}

export const READS: readonly Read[] = [
  { id: 'get', label: 'get by id', path: (job) => job && `/v1/jobs/${job.id}` },
  { id: 'listTopic', label: "a topic's jobs, first page", path: () => '/v1/jobs?topic=t3&limit=100' },
  {
    id: 'listBizKey',
    label: "a bizKey's jobs, first page",
    path: (job) => job && `/v1/jobs?bizKey=${job.bizKey}&limit=100`,
  },
  { id: 'stats', label: '`/v1/stats`', path: () => '/v1/stats' },
  { id: 'topicStats', label: "a topic's stats", path: (job) => job && '/v1/topics/t3/stats' },
  {
    id: 'due30d',
    label: 'the 30-day due histogram, by day',
    path: (_job, now) => {
      const from = Math.floor(now / DAY) * DAY;
      return `/v1/stats/due?from=${from}&to=${from + 30 * DAY}&bucketMs=${DAY}`;
    },
  },
  { id: 'delayed', label: '`/v1/delayed`, first page', path: () => '/v1/delayed?limit=100' },
  { id: 'topics', label: 'the topic list, first page', path: () => '/v1/topics?limit=100', optional: true },
];

export type Metrics = Record<string, number>;

/** One shape's walk through the backlogs: the jobs pushed so far and the shards' CPU at the last backlog. */
export class ShapeWalk {
  private readonly shape: ScaleShape;
  private readonly counts: ScaleCounts;
  private readonly pusher: JobPusher;
  private pushed = 0;
  /** Reads the server does not offer (a 404), named once in the page. */
  readonly missingReads = new Set<string>();

  constructor(shape: ScaleShape, counts: ScaleCounts, t0: number) {
    this.shape = shape;
    this.counts = counts;
    this.pusher = new JobPusher(shape.http, t0);
  }

  /** Fills to `backlog` jobs and measures there; failures of one part are reported and the rest goes on. */
  async at(backlog: number, fail: (what: string, err: unknown) => void): Promise<Metrics> {
    const m: Metrics = {};
    const part = async (what: string, fn: () => Promise<void>) => {
      try {
        await fn();
      } catch (err) {
        fail(what, err);
      }
    };
    const filled = Math.max(0, backlog - this.pushed);
    if (filled > 0) {
      const cpu0 = await this.redisCpu();
      m['fillRate'] = await this.pusher.batches(this.pushed, backlog);
      const cpu1 = await this.redisCpu();
      cpu1.forEach((ms, i) => {
        if (this.shape.nodes.length > 1) m[`shard${i}CpuUs`] = ((ms - cpu0[i]!) * 1000) / filled;
      });
      if (cpu1.length)
        m['redisCpuUs'] = ((cpu1.reduce((a, b) => a + b, 0) - cpu0.reduce((a, b) => a + b, 0)) * 1000) / filled;
    }
    this.pushed = Math.max(this.pushed, backlog);
    await part('memory', () => this.memory(m));
    for (const read of READS) await part(`read ${read.id}`, () => this.read(read, m));
    await part('stream', async () => {
      const stream = new StreamSubject(this.shape.port);
      try {
        const r = await lateness(stream, STREAM_RATE, this.counts.streamS * 1000, STREAM_LEAD_MS);
        Object.assign(m, { lateP50: r.p50, lateP99: r.p99, lateMax: r.max, lateMissing: r.missing });
      } finally {
        await stream.close();
      }
    });
    await part('push batches', async () => {
      m['pushBatch'] = await this.pusher.batches(this.pushed, this.pushed + this.counts.batchJobs);
      this.pushed += this.counts.batchJobs;
    });
    await part('push singles', async () => {
      m['pushSingle'] = await this.pusher.singles(this.pushed, this.pushed + this.counts.singleJobs);
      this.pushed += this.counts.singleJobs;
    });
    await part('restart', async () => void (m['restartMs'] = await this.shape.restart()));
    if (this.shape.key === 'postgres' || this.shape.key === 'mariadb')
      await part('restore', async () => {
        const r = await this.shape.restoreAfterWipe();
        Object.assign(m, { restoreMs: r.ms, restored: r.restored, restoreScanned: r.scanned });
      });
    return m;
  }

  /** Each Redis node's CPU so far, ms. */
  private redisCpu(): Promise<number[]> {
    return Promise.all(this.shape.nodes.map((n) => redisCpuMs(n.admin)));
  }

  private async memory(m: Metrics): Promise<void> {
    await sleep(500); // background writers (WAL, journal flush) settle
    m['rssDelayq'] = rssBytes(this.shape.serverPid);
    const sqlite = this.shape.sqliteBytes();
    if (sqlite !== undefined) m['sqliteBytes'] = sqlite;
    if (this.shape.nodes.length === 0) return;
    let used = 0;
    let rss = 0;
    for (const [i, node] of this.shape.nodes.entries()) {
      const bytes = await usedMemory(node.admin);
      used += bytes;
      rss += rssBytes(node.pid);
      if (this.shape.nodes.length > 1) {
        m[`shard${i}Memory`] = bytes;
        m[`shard${i}Keys`] = await node.admin.dbsize();
      }
    }
    m['usedMemory'] = used;
    m['rssRedis'] = rss;
  }

  private async read(read: Read, m: Metrics): Promise<void> {
    const job = this.pusher.known[Math.floor(this.pusher.known.length / 2)];
    const times: number[] = [];
    const warm = this.counts.warmReads ?? 0;
    for (let i = 0; i < warm + this.counts.reads; i++) {
      const path = read.path(job, Date.now());
      if (path === undefined) return; // nothing to ask for yet (no job pushed)
      const started = performance.now();
      try {
        await this.shape.http.request('GET', path);
      } catch (err) {
        if (read.optional && err instanceof HttpStatusError && err.status === 404) {
          this.missingReads.add(read.id);
          return;
        }
        throw err;
      }
      if (i >= warm) times.push(performance.now() - started);
    }
    m[`${read.id}Median`] = median(times);
    m[`${read.id}Max`] = Math.max(...times);
  }
}
