// The jobs of the scale run: job n has a 100-byte JSON body, topic `t<n mod 8>`, a bizKey of its own (`k<n>`),
// and is due between 10 min and 30 days after the run started, spread evenly (a golden-ratio sequence, so any
// prefix of the jobs covers the 30 days evenly too). Pushed over HTTP as a plain client would: batches of
// 1000 (`POST /v1/jobs/batch`, 4 in flight) or one `POST /v1/jobs` per job (100 in flight).
import { withInFlight } from '../scenarios.js';
import { bodyFor } from '../subject.js';
import type { NodeHttpClient } from '../subjects/plain-http.js';

export const TOPICS = 8;
export const BATCH = 1000;
export const BATCHES_IN_FLIGHT = 4;
export const SINGLE_IN_FLIGHT = 100;
const DAY = 86_400_000;
const FIRST_DUE_MS = 10 * 60_000;
const LAST_DUE_MS = 30 * DAY;
const GOLDEN = 0.6180339887498949;

export interface ScaleJob {
  topic: string;
  bizKey: string;
  runAt: number;
  body: { d: number; p: string };
}

export function scaleJob(n: number, t0: number): ScaleJob {
  const runAt = t0 + FIRST_DUE_MS + Math.floor(((n * GOLDEN) % 1) * (LAST_DUE_MS - FIRST_DUE_MS));
  return { topic: `t${n % TOPICS}`, bizKey: `k${n}`, runAt, body: bodyFor(runAt) };
}

/** A job the reads can ask for: its id and bizKey. */
export interface KnownJob {
  id: string;
  bizKey: string;
}

/** Pushes jobs n = from … to − 1 and keeps a few of them (their ids) for the reads. */
export class JobPusher {
  private readonly http: NodeHttpClient;
  private readonly t0: number;
  readonly known: KnownJob[] = [];

  constructor(http: NodeHttpClient, t0: number) {
    this.http = http;
    this.t0 = t0;
  }

  /** Batches of 1000, 4 in flight; resolves with jobs/s. Every 50th batch's answer is read for a known job. */
  async batches(from: number, to: number): Promise<number> {
    const batches = Math.ceil((to - from) / BATCH);
    const started = performance.now();
    await withInFlight(batches, BATCHES_IN_FLIGHT, async (b) => {
      const first = from + b * BATCH;
      const jobs = Array.from({ length: Math.min(BATCH, to - first) }, (_, i) => scaleJob(first + i, this.t0));
      const text = await this.http.request('POST', '/v1/jobs/batch', JSON.stringify({ jobs }));
      if (b % 50 === 0) {
        const { results } = JSON.parse(text) as { results: { job: { id: string; bizKey: string } }[] };
        this.keep(results[0]!.job);
      }
    });
    return (to - from) / ((performance.now() - started) / 1000);
  }

  /** One request per job, 100 in flight; resolves with jobs/s. */
  async singles(from: number, to: number): Promise<number> {
    const started = performance.now();
    await withInFlight(to - from, SINGLE_IN_FLIGHT, async (i) => {
      const text = await this.http.request('POST', '/v1/jobs', JSON.stringify(scaleJob(from + i, this.t0)));
      if (i === 0) this.keep((JSON.parse(text) as { job: KnownJob }).job);
    });
    return (to - from) / ((performance.now() - started) / 1000);
  }

  private keep(job: KnownJob): void {
    this.known.push({ id: job.id, bizKey: job.bizKey });
    if (this.known.length > 1000) this.known.splice(0, this.known.length - 1000);
  }
}
