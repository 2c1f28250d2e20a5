import { useRef } from 'preact/hooks';
import { get, post, type TopicStats } from '../api.js';
import { duration, seconds } from '../format.js';
import { counterByTopic, parseMetrics, quantileByTopic } from '../../../src/observe/metrics-text.js';
import { useLoad } from './use-load.js';

const STATES = ['delayed', 'ready', 'reserved', 'finished', 'dead', 'cancelled', 'expired'];

interface Overview {
  topics: TopicStats[];
  p99: Map<string, number>;
  rates: Map<string, { push: number; finish: number }>;
}

/** Counts per state (GET /v1/stats), rates and delivery lateness p99 (GET /metrics, when the token may read it). */
export function Topics() {
  const last = useRef<{ at: number; push: Map<string, number>; finish: Map<string, number> } | null>(null);
  const { data, error, reload } = useLoad<Overview>(
    async () => {
      const { topics } = await get<{ topics: TopicStats[] }>('/v1/stats');
      let p99 = new Map<string, number>();
      const rates = new Map<string, { push: number; finish: number }>();
      try {
        const samples = parseMetrics(await get<string>('/metrics'));
        p99 = quantileByTopic(samples, 'delayq_delivery_lateness_seconds', 0.99);
        const now = {
          at: Date.now(),
          push: counterByTopic(samples, 'push'),
          finish: counterByTopic(samples, 'finish'),
        };
        const before = last.current;
        if (before) {
          const dt = (now.at - before.at) / 1000;
          for (const t of topics) {
            const rate = (m: Map<string, number>, b: Map<string, number>) =>
              ((m.get(t.topic) ?? 0) - (b.get(t.topic) ?? 0)) / dt;
            rates.set(t.topic, { push: rate(now.push, before.push), finish: rate(now.finish, before.finish) });
          }
        }
        last.current = now;
      } catch {
        /* /metrics needs an unrestricted token: the columns stay empty */
      }
      return { topics, p99, rates };
    },
    [],
    5000,
  );

  const act = async (topic: string, verb: 'pause' | 'resume') => {
    try {
      await post(`/v1/topics/${encodeURIComponent(topic)}/${verb}`);
    } catch (err) {
      alert((err as Error).message);
    }
    reload();
  };

  return (
    <section>
      <h1>Topics</h1>
      {error && <p class="error">{error}</p>}
      <table id="topics">
        <thead>
          <tr>
            <th>topic</th>
            {STATES.map((s) => (
              <th class="num">{s}</th>
            ))}
            <th>next due</th>
            <th class="num">push/s</th>
            <th class="num">finish/s</th>
            <th class="num">lateness p99</th>
            <th>paused</th>
          </tr>
        </thead>
        <tbody>
          {data?.topics.map((t) => (
            <tr data-topic={t.topic}>
              <td>
                <a href={`#/jobs?topic=${encodeURIComponent(t.topic)}`}>{t.topic}</a>
              </td>
              {STATES.map((s) => (
                <td class="num" data-state={s}>
                  {s === 'dead' && t.counts[s] ? (
                    <a href={`#/dead?topic=${encodeURIComponent(t.topic)}`}>{t.counts[s]}</a>
                  ) : (
                    t.counts[s]
                  )}
                </td>
              ))}
              <td>
                {t.nextDueAt ? (
                  <a href={`#/due?topic=${encodeURIComponent(t.topic)}`}>{duration(t.nextDueAt - Date.now())}</a>
                ) : (
                  '—'
                )}
              </td>
              <td class="num">{data.rates.get(t.topic)?.push.toFixed(1) ?? '—'}</td>
              <td class="num">{data.rates.get(t.topic)?.finish.toFixed(1) ?? '—'}</td>
              <td class="num">{seconds(data.p99.get(t.topic))}</td>
              <td>
                {t.paused === undefined ? (
                  <span class="muted">—</span>
                ) : (
                  <button onClick={() => act(t.topic, t.paused ? 'resume' : 'pause')}>
                    {t.paused ? 'paused: resume' : 'pause'}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && data.topics.length === 0 && <p class="muted">No jobs yet.</p>}
    </section>
  );
}
