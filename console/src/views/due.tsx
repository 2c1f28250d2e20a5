import { get, query } from '../api.js';
import { shownZone, wallTime } from '../format.js';
import { setParams } from '../router.js';
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

/** A bucket's label in the shown zone: `14:05`, or `11-28` by day. */
const label = (at: number, range: Range): string => {
  const text = wallTime(at, shownZone());
  return range === 'month' ? text.slice(5, 10) : text.slice(11, 16);
};

/**
 * GET /v1/stats/due: delayed jobs per due-time bucket, drawn as bars (the count is also the bar's text). The
 * topic and the range are the URL's, so clearing the topic shows every topic again.
 */
export function DueHistogram({ params }: { params: URLSearchParams }) {
  const topic = params.get('topic') ?? '';
  const range: Range = (params.get('range') as Range | null) ?? 'hour';
  const { data, error } = useLoad<Histogram>(
    () => {
      const r = RANGES[range] ?? RANGES.hour;
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
      <form
        // keyed by the URL's topic: the field shows what the URL says, and a range picked meanwhile keeps what is typed
        key={topic}
        class="controls"
        onSubmit={(e) => {
          e.preventDefault();
          setParams({ topic: String(new FormData(e.currentTarget as HTMLFormElement).get('topic') ?? '').trim() });
        }}
      >
        <input placeholder="topic (all)" defaultValue={topic} name="topic" />
        <button type="submit">Show</button>
        {(Object.keys(RANGES) as Range[]).map((r) => (
          <button
            type="button"
            class={r === range ? 'active' : ''}
            data-range={r}
            onClick={() => setParams({ range: r })}
          >
            {RANGES[r].label}
          </button>
        ))}
      </form>
      {error && <p class="error">{error}</p>}
      {data && (
        <>
          <p id="due-total">
            <strong>{data.total}</strong> delayed jobs {topic ? `of ${topic} ` : ''}due in the{' '}
            {RANGES[range].label.replace(/ by .*/, '')}
          </p>
          <div class="histogram" id="histogram">
            {data.buckets.map((b, i) => (
              <div class="bar" title={`${wallTime(b.at, shownZone())}: ${b.count}`} data-at={b.at} data-count={b.count}>
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
