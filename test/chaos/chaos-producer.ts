// Child-process load generator of the chaos suite: pushes jobs over HTTP at a steady rate and prints one
// JSON history event per acknowledged push (2xx). A push that fails (server killed, 503) is not
// acknowledged and is not retried: the checker only holds delayq to what it acknowledged.
// argv[2]: JSON ProducerSpec. Stops on SIGTERM after printing `DONE`.
export interface ProducerSpec {
  /** Servers to push to, round-robin. */
  urls: string[];
  prefix: string;
  topic: string;
  ratePerSec: number;
  /** Delays are spread over 0..delayMaxMs. */
  delayMaxMs: number;
  ttrMs: number;
  /** Take runAt as the client's send time + delay (the service host's clock may be faked). */
  clientRunAt?: boolean;
  /** Cancel every n-th acknowledged push right after its ack (0: never); an acknowledged cancel is logged. */
  cancelEvery?: number;
}

const spec = JSON.parse(process.argv[2]!) as ProducerSpec;
let stopping = false;
process.once('SIGTERM', () => (stopping = true));
const out = (o: object): void => void process.stdout.write(JSON.stringify(o) + '\n');

async function pushOne(i: number): Promise<void> {
  const id = `${spec.prefix}-${i}`;
  const delayMs = (i * 7919) % (spec.delayMaxMs + 1);
  const sentAt = Date.now();
  try {
    const res = await fetch(`${spec.urls[i % spec.urls.length]}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id,
        topic: spec.topic,
        delayMs,
        ttrMs: spec.ttrMs,
        body: { i },
        retry: { maxAttempts: 1000, backoff: { type: 'fixed', delayMs: 0 } },
      }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    if (res.status === 201 || res.status === 200) {
      const { job } = JSON.parse(text) as { job: { runAt: number; ttrMs: number } };
      out({
        type: 'push',
        id,
        runAt: spec.clientRunAt ? sentAt + delayMs : job.runAt,
        ttrMs: job.ttrMs,
        at: Date.now(),
      });
      if (spec.cancelEvery && i % spec.cancelEvery === 0) await cancelOne(spec.urls[(i + 1) % spec.urls.length]!, id);
    } else {
      out({
        type: 'push-refused',
        id,
        status: res.status,
        code: (JSON.parse(text) as { error?: { code?: string } }).error?.code,
        at: Date.now(),
      });
    }
  } catch (err) {
    out({ type: 'push-error', id, error: (err as Error).message, at: Date.now() });
  }
}

/** A cancel is logged only when acknowledged (200); a refused one (the job was already reserved) is not a cancel. */
async function cancelOne(url: string, id: string): Promise<void> {
  out({ type: 'cancel-sent', id, at: Date.now() });
  try {
    const res = await fetch(`${url}/v1/jobs/${encodeURIComponent(id)}/cancel`, {
      method: 'POST',
      signal: AbortSignal.timeout(10_000),
    });
    await res.text();
    out({ type: res.status === 200 ? 'cancel' : 'cancel-refused', id, status: res.status, at: Date.now() });
  } catch (err) {
    out({ type: 'cancel-error', id, error: (err as Error).message, at: Date.now() });
  }
}

const intervalMs = 1000 / spec.ratePerSec;
const startedAt = performance.now();
const inFlight = new Set<Promise<void>>();
for (let i = 0; !stopping; i++) {
  const p = pushOne(i);
  inFlight.add(p);
  void p.finally(() => inFlight.delete(p));
  // steady rate, whatever the latency of single pushes (bounded concurrency)
  const wait = startedAt + (i + 1) * intervalMs - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  while (inFlight.size > 200) await Promise.race(inFlight);
}
await Promise.allSettled([...inFlight]);
out({ type: 'done' });
process.exit(0);
