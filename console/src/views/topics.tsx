import { get, post, query, STATES, type TopicPage, type TopicStats } from '../api.js';
import { count, duration, seconds } from '../format.js';
import { href, setParams } from '../router.js';
import { windowOf } from '../series.js';
import { useConfirm } from './confirm.js';
import { OverviewCharts } from './overview-charts.js';
import { Pager } from './pager.js';
import { useLoad } from './use-load.js';

/** The rates and p99 cover the last five minutes of the whole store, whichever instance serves the page. */
const RECENT = '/v1/stats/series?windowMs=300000&stepMs=60000';

interface RecentFigures {
  elapsedMs: number;
  topics: { topic: string; total: { counts: Record<string, number>; lateness: { p99Ms: number | null } } }[];
}

interface Overview {
  page: TopicPage;
  p99: Map<string, number>;
  rates: Map<string, { push: number; finish: number }>;
}

const COLUMNS: [sort: string, label: string][] = [
  ['topic', 'topic'],
  ...STATES.map((s) => [s, s] as [string, string]),
  ['total', 'total'],
  ['nextDueAt', 'next due'],
];
const defaultOrder = (sort: string) => (sort === 'topic' || sort === 'nextDueAt' ? 'asc' : 'desc');

/**
 * Every topic a page at a time (GET /v1/topics): filtered by name, by a state with jobs or by pause, sorted by
 * any column, paged by cursor, all kept in the URL; rates and delivery lateness p99 of the last five minutes of
 * the whole store (GET /v1/stats/series), and below, the figures over a chosen window (overview-charts.tsx).
 */
export function Topics({ params }: { params: URLSearchParams }) {
  const filter = {
    contains: params.get('contains') ?? '',
    has: params.get('has') ?? '',
    paused: params.get('paused') ?? '',
    sort: params.get('sort') ?? 'topic',
    order: params.get('order') ?? '',
    limit: params.get('limit') ?? '50',
    cursor: params.get('cursor') ?? '',
  };
  const { ask, dialog } = useConfirm();
  const { data, error, reload } = useLoad<Overview>(
    async () => {
      const [page, recent] = await Promise.all([
        get<TopicPage>(`/v1/topics${query(filter)}`),
        get<RecentFigures>(RECENT),
      ]);
      const p99 = new Map<string, number>();
      const rates = new Map<string, { push: number; finish: number }>();
      const elapsedS = Math.max(1, recent.elapsedMs / 1000);
      for (const { topic, total } of recent.topics) {
        rates.set(topic, {
          push: (total.counts['push'] ?? 0) / elapsedS,
          finish: (total.counts['finish'] ?? 0) / elapsedS,
        });
        if (total.lateness.p99Ms !== null) p99.set(topic, total.lateness.p99Ms / 1000);
      }
      return { page, p99, rates };
    },
    [JSON.stringify(filter)],
    5000,
  );

  const togglePause = async (t: TopicStats) => {
    if (!t.paused) {
      const ok = await ask(
        `Pause ${t.topic}? Consumers and sinks get none of its ${count(t.counts['ready'] ?? 0)} ready jobs (nor those that come due) until it is resumed.`,
        `Pause ${t.topic}`,
      );
      if (!ok) return;
    }
    try {
      await post(`/v1/topics/${encodeURIComponent(t.topic)}/${t.paused ? 'resume' : 'pause'}`);
    } catch (err) {
      alert((err as Error).message);
    }
    reload();
  };

  const sortBy = (sort: string) => {
    const order = filter.sort === sort ? ((filter.order || defaultOrder(sort)) === 'asc' ? 'desc' : 'asc') : null;
    setParams({ sort, order, cursor: null });
  };
  const arrow = (sort: string) =>
    filter.sort === sort ? ((filter.order || defaultOrder(sort)) === 'asc' ? ' ▲' : ' ▼') : '';

  return (
    <section>
      <h1>Topics</h1>
      {dialog}
      <form
        // keyed by the URL: its fields show what the URL says, and what is typed survives a refresh
        key={params.toString()}
        class="controls"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget as HTMLFormElement);
          setParams({
            contains: String(form.get('contains')),
            has: String(form.get('has')),
            paused: String(form.get('paused')),
            cursor: null,
          });
        }}
      >
        <input name="contains" placeholder="name contains" defaultValue={filter.contains} />
        <select name="has" value={filter.has}>
          <option value="">with jobs in any state</option>
          {STATES.map((s) => (
            <option value={s}>with {s} jobs</option>
          ))}
        </select>
        <select name="paused" value={filter.paused}>
          <option value="">paused or not</option>
          <option value="true">paused</option>
          <option value="false">not paused</option>
        </select>
        <button type="submit">Filter</button>
        <select
          name="limit"
          value={filter.limit}
          onChange={(e) => setParams({ limit: (e.target as HTMLSelectElement).value, cursor: null })}
        >
          {['20', '50', '100', '500'].map((n) => (
            <option value={n}>{n} a page</option>
          ))}
        </select>
      </form>
      {error && <p class="error">{error}</p>}
      <table id="topics">
        <thead>
          <tr>
            {COLUMNS.map(([sort, label]) => (
              <th
                class={sort === 'topic' || sort === 'nextDueAt' ? 'sortable' : 'sortable num'}
                data-sort={sort}
                onClick={() => sortBy(sort)}
              >
                {label}
                {arrow(sort)}
              </th>
            ))}
            <th class="num">push/s</th>
            <th class="num">finish/s</th>
            <th class="num">lateness p99</th>
            <th>paused</th>
          </tr>
        </thead>
        <tbody>
          {data?.page.topics.map((t) => (
            <tr data-topic={t.topic}>
              <td>
                <a href={href(`/topic/${t.topic}`)}>{t.topic}</a>
              </td>
              {STATES.map((s) => (
                <td class="num" data-state={s}>
                  {s === 'dead' && t.counts[s] ? (
                    <a href={href('/dead', { topic: t.topic })}>{t.counts[s]}</a>
                  ) : s === 'reserved' && t.counts[s] ? (
                    <a href={href('/running', { topic: t.topic })}>{t.counts[s]}</a>
                  ) : (
                    t.counts[s]
                  )}
                </td>
              ))}
              <td class="num" data-state="total">
                {STATES.reduce((sum, s) => sum + (t.counts[s] ?? 0), 0)}
              </td>
              <td>
                {t.nextDueAt ? (
                  <a href={href('/due', { topic: t.topic })}>{duration(t.nextDueAt - Date.now())}</a>
                ) : (
                  '—'
                )}
              </td>
              <td class="num" data-figure="push-rate">
                {data.rates.get(t.topic)?.push.toFixed(2) ?? '—'}
              </td>
              <td class="num" data-figure="finish-rate">
                {data.rates.get(t.topic)?.finish.toFixed(2) ?? '—'}
              </td>
              <td class="num" data-figure="lateness-p99">
                {seconds(data.p99.get(t.topic))}
              </td>
              <td>
                <button onClick={() => togglePause(t)}>{t.paused ? 'paused: resume' : 'pause'}</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && data.page.total === 0 && <p class="muted">No topics match.</p>}
      {data && (
        <Pager
          cursor={filter.cursor || null}
          next={data.page.next}
          shown={data.page.topics.length}
          total={data.page.total}
        />
      )}
      <OverviewCharts window={windowOf(params)} />
    </section>
  );
}
