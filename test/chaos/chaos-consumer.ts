// Child-process consumer of the chaos suite: long-polls reserve over HTTP and prints one JSON history event
// per delivery and per acknowledged finish or fail. `at` of a delivery is the server's reservation time
// (deadlineAt − TTR), the exact instant the checker must compare with runAt.
// argv[2]: JSON ConsumerSpec. Stops on SIGTERM.
export interface ConsumerSpec {
  urls: string[];
  topic: string;
  /** Parallel long-poll loops. */
  loops: number;
  /** Fail every n-th delivery instead of finishing it (0: never). */
  failEvery?: number;
  /** Take deliveries' `at` from this process's clock instead of the server's (faked server clock). */
  clientClock?: boolean;
  /** Leave every n-th delivery unsettled (0: never): its reservation lapses and the job comes back. */
  abandonEvery?: number;
}

const spec = JSON.parse(process.argv[2]!) as ConsumerSpec;
let stopping = false;
process.once('SIGTERM', () => (stopping = true));
const out = (o: object): void => void process.stdout.write(JSON.stringify(o) + '\n');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface WireReservation {
  job: { id: string; ttrMs: number };
  token: string;
  deadlineAt: number;
}

async function post(url: string, body: object, timeoutMs: number): Promise<{ status: number; json: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: res.status, json: await res.json().catch(() => null) };
}

/**
 * Acknowledges a delivery; retries through server restarts until the TTR would have lapsed anyway.
 * A kill can swallow the answer of a finish or fail that committed: the retry is then refused (409) or
 * never answered. Such a fail is logged as an inferred fail; such a finish is logged once a GET shows the
 * job finished.
 * A fail is logged at its delivery's time (`deliveredAt`, the server's clock): it certainly came after that
 * delivery and before the redelivery it allows, whereas this process's clock and the server's disagree by
 * a few ms, and the server stamps a reservation with the time its reserve call began, which may precede
 * the fail committed in the same group commit.
 */
async function settle(base: string, r: WireReservation, action: 'finish' | 'fail', deliveredAt: number): Promise<void> {
  const body = action === 'fail' ? { token: r.token, retryDelayMs: 0, error: 'chaos' } : { token: r.token };
  const url = `${base}/v1/jobs/${encodeURIComponent(r.job.id)}`;
  let attempted = false;
  while (Date.now() < r.deadlineAt || !attempted) {
    attempted = true;
    try {
      const res = await post(`${url}/${action}`, body, 5000);
      if (res.status === 200) {
        out({ type: action, id: r.job.id, at: action === 'fail' ? deliveredAt : Date.now() });
        return;
      }
      if (res.status !== 503) {
        out({
          type: `${action}-refused`,
          id: r.job.id,
          status: res.status,
          code: res.json?.error?.code,
          at: Date.now(),
        });
        if (res.status === 409) await inferLost(url, r, action, deliveredAt);
        return;
      }
    } catch {
      /* server down: try again */
    }
    await sleep(100);
  }
  out({ type: `${action}-gave-up`, id: r.job.id, at: Date.now() });
  await inferLost(url, r, action, deliveredAt);
}

async function inferLost(
  url: string,
  r: WireReservation,
  action: 'finish' | 'fail',
  deliveredAt: number,
): Promise<void> {
  if (action === 'fail') {
    out({ type: 'fail', id: r.job.id, at: deliveredAt, inferred: true });
    return;
  }
  const job = await fetch(url, { signal: AbortSignal.timeout(5000) }).then(
    (x) => x.json() as Promise<any>,
    () => null,
  );
  if (job?.job?.state === 'finished') out({ type: 'finish', id: r.job.id, at: Date.now(), inferred: true });
}

let seen = 0;
const WAIT_MS = 1000;
/**
 * A long poll unanswered this long is stuck: the server owes an answer after waitMs plus a few store command
 * timeouts (2 s each) during a failover, and the rest is room for a starved CPU on a loaded test host. Polls
 * slower than SLOW_MS are logged with their time.
 */
const STUCK_MS = 60_000;
const SLOW_MS = 5000;
async function loop(n: number): Promise<void> {
  const base = spec.urls[n % spec.urls.length]!;
  while (!stopping) {
    let reservations: WireReservation[];
    const polledAt = Date.now();
    try {
      const res = await post(`${base}/v1/reserve`, { topics: [spec.topic], count: 10, waitMs: WAIT_MS }, STUCK_MS);
      if (res.status !== 200) {
        out({ type: 'poll-refused', status: res.status, url: base, at: Date.now() });
        await sleep(100);
        continue;
      }
      reservations = res.json.reservations as WireReservation[];
      if (Date.now() - polledAt > SLOW_MS)
        out({ type: 'poll-slow', url: base, ms: Date.now() - polledAt, at: Date.now() });
    } catch (err) {
      const stuck = (err as Error).name === 'TimeoutError';
      out({ type: stuck ? 'poll-stuck' : 'poll-error', url: base, polledAt, at: Date.now() });
      await sleep(100);
      continue;
    }
    const receivedAt = Date.now();
    const deliveredAt = reservations.map((r) => (spec.clientClock ? receivedAt : r.deadlineAt - r.job.ttrMs));
    reservations.forEach((r, i) => {
      out({ type: 'deliver', id: r.job.id, at: deliveredAt[i], receivedAt, deadlineAt: r.deadlineAt });
    });
    await Promise.all(
      reservations.map((r, i) => {
        seen++;
        if (spec.abandonEvery && seen % spec.abandonEvery === 0) {
          out({ type: 'abandon', id: r.job.id, at: Date.now() });
          return undefined;
        }
        return settle(base, r, spec.failEvery && seen % spec.failEvery === 0 ? 'fail' : 'finish', deliveredAt[i]!);
      }),
    );
  }
}

await Promise.all(Array.from({ length: spec.loops }, (_, n) => loop(n)));
out({ type: 'done' });
process.exit(0);
