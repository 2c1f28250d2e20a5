/** Reads a few series out of the Prometheus text of GET /metrics (the console and `delayq stats --watch`). */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const pair of (m[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[4]) });
  }
  return samples;
}

/** Transitions counted so far per topic for one event (delayq_jobs_total). */
export function counterByTopic(samples: Sample[], event: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of samples)
    if (s.name === 'delayq_jobs_total' && s.labels['event'] === event) out.set(s.labels['topic']!, s.value);
  return out;
}

/** The p-quantile (seconds) of a histogram per topic, by linear interpolation in its cumulative buckets. */
export function quantileByTopic(samples: Sample[], histogram: string, q: number): Map<string, number> {
  const buckets = new Map<string, { le: number; count: number }[]>();
  for (const s of samples) {
    if (s.name !== `${histogram}_bucket`) continue;
    const list = buckets.get(s.labels['topic']!) ?? [];
    list.push({ le: s.labels['le'] === '+Inf' ? Infinity : Number(s.labels['le']), count: s.value });
    buckets.set(s.labels['topic']!, list);
  }
  const out = new Map<string, number>();
  for (const [topic, list] of buckets) {
    list.sort((a, b) => a.le - b.le);
    const total = list[list.length - 1]?.count ?? 0;
    if (total === 0) continue;
    const rank = q * total;
    let prev = { le: 0, count: 0 };
    for (const b of list) {
      if (b.count >= rank) {
        const le = b.le === Infinity ? prev.le : b.le;
        const span = b.count - prev.count;
        out.set(topic, span > 0 ? prev.le + ((le - prev.le) * (rank - prev.count)) / span : le);
        break;
      }
      prev = b;
    }
  }
  return out;
}
