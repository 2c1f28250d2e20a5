import { useState } from 'preact/hooks';
import { get, query } from '../api.js';
import { useLoad } from './use-load.js';

const RANGES = {
  hour: { label: 'next hour by minute', spanMs: 3_600_000, bucketMs: 60_000 },
  day: { label: 'next day by hour', spanMs: 86_400_000, bucketMs: 3_600_000 },
  month: { label: 'next month by day', spanMs: 30 * 86_400_000, bucketMs: 86_400_000 },
} as const;
type Range = keyof typeof RANGES;

interface Histogram {
  total: number;
  bucketMs: number;
  buckets: { at: number; count: number }[];
}

const label = (at: number, range: Range): string => {
  const d = new Date(at);
  const hm = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  return range === 'month' ? `${d.getMonth() + 1}/${d.getDate()}` : hm;
};

/** GET /v1/stats/due: delayed jobs per due-time bucket, drawn as bars (the count is also the bar's text). */
export function DueHistogram({ topic: initial }: { topic: string }) {
  const [range, setRange] = useState<Range>('hour');
  const [topic, setTopic] = useState(initial);
  const { data, error } = useLoad<Histogram>(
    () => {
      const r = RANGES[range];
      const from = Math.floor(Date.now() / r.bucketMs) * r.bucketMs;
      return get(`/v1/stats/due${query({ topic, from, to: from + r.spanMs, bucketMs: r.bucketMs })}`);
    },
    [range, topic],
    10_000,
  );
  const max = Math.max(1, ...(data?.buckets.map((b) => b.count) ?? []));
  return (
    <section>
      <h1>Due times</h1>
      <div class="controls">
        <input
          placeholder="topic (all)"
          value={topic}
          onChange={(e) => setTopic((e.target as HTMLInputElement).value.trim())}
          name="topic"
        />
        {(Object.keys(RANGES) as Range[]).map((r) => (
          <button class={r === range ? 'active' : ''} data-range={r} onClick={() => setRange(r)}>
            {RANGES[r].label}
          </button>
        ))}
      </div>
      {error && <p class="error">{error}</p>}
      {data && (
        <>
          <p id="due-total">
            <strong>{data.total}</strong> delayed jobs due in the {RANGES[range].label.replace(/ by .*/, '')}
          </p>
          <div class="histogram" id="histogram">
            {data.buckets.map((b, i) => (
              <div
                class="bar"
                title={`${new Date(b.at).toLocaleString()}: ${b.count}`}
                data-at={b.at}
                data-count={b.count}
              >
                <span class="count">{b.count || ''}</span>
                <span class="fill" style={{ height: `${(b.count / max) * 100}%` }} />
                {i % Math.ceil(data.buckets.length / 12) === 0 && <span class="at">{label(b.at, range)}</span>}
              </div>
            ))}
          </div>
        </>
      )}
    </section>
  );
}
