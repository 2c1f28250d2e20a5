/** Small HTTP helpers for tests that talk to a chaos server directly. */
export interface WireReservation {
  job: { id: string; ttrMs: number; runAt: number; attempts: number };
  token: string;
  deadlineAt: number;
}

export async function postJson(
  url: string,
  body: unknown,
  timeoutMs = 10_000,
): Promise<{ status: number; json: any; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const json = await res.json().catch(() => null);
  return { status: res.status, json, ms: performance.now() - t0 };
}

export async function getJson(url: string, timeoutMs = 10_000): Promise<{ status: number; json: any }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  return { status: res.status, json: await res.json().catch(() => null) };
}

export async function reserve(
  base: string,
  topic: string,
  count: number,
  waitMs: number,
  ttrMs?: number,
): Promise<WireReservation[]> {
  const res = await postJson(
    `${base}/v1/reserve`,
    { topics: [topic], count, waitMs, ...(ttrMs ? { ttrMs } : {}) },
    waitMs + 10_000,
  );
  if (res.status !== 200) throw new Error(`reserve: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json.reservations as WireReservation[];
}

export async function push(base: string, job: Record<string, unknown>): Promise<any> {
  const res = await postJson(`${base}/v1/jobs`, job);
  if (res.status !== 201) throw new Error(`push: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json.job;
}
