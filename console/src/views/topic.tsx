import {
  ApiError,
  get,
  post,
  STATES,
  type Binding,
  type Consumer,
  type TopicSettings,
  type TopicStats,
} from '../api.js';
import { count, duration, time } from '../format.js';
import { href } from '../router.js';
import { windowOf } from '../series.js';
import { useConfirm } from './confirm.js';
import { TopicCharts } from './topic-charts.js';
import { TopicRateLimit } from './topic-rate-limit.js';
import { TopicGroupConcurrency } from './topic-group-concurrency.js';
import { TopicGroupPauses } from './topic-group-pauses.js';
import { useLoad } from './use-load.js';

interface TopicView {
  stats: TopicStats | null;
  binding: Binding | null;
  consumers: Consumer[];
  settings: TopicSettings;
}

const orNull = <T,>(promise: Promise<T>): Promise<T | null> =>
  promise.catch((err: unknown) => {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  });

/**
 * One topic: its counts, its pause, its figures over time, its dispatch rate limit, its groups' bound and pauses,
 * who consumes it, its delivery binding, and the ways into its jobs (list, bulk, due times, dead letters,
 * reservations).
 */
export function TopicPage({ topic, params }: { topic: string; params: URLSearchParams }) {
  const path = `/v1/topics/${encodeURIComponent(topic)}`;
  const { ask, dialog } = useConfirm();
  const { data, error, reload } = useLoad<TopicView>(
    async () => {
      const [stats, binding, consumers, settings] = await Promise.all([
        orNull(get<TopicStats>(`${path}/stats`)),
        orNull(get<Binding>(`${path}/sink`)).catch(() => null),
        get<{ consumers: Consumer[] }>(`/v1/consumers?topic=${encodeURIComponent(topic)}`).then((r) => r.consumers),
        get<TopicSettings>(`${path}/settings`),
      ]);
      return { stats, binding, consumers, settings };
    },
    [topic],
    5000,
  );
  const toggle = async () => {
    const paused = data?.stats?.paused;
    if (
      !paused &&
      !(await ask(`Pause ${topic}? Consumers and sinks get none of its jobs until it is resumed.`, `Pause ${topic}`))
    )
      return;
    await post(`${path}/${paused ? 'resume' : 'pause'}`).catch((err: Error) => alert(err.message));
    reload();
  };
  if (error) return <p class="error">{error}</p>;
  if (!data) return <p class="muted">Loading…</p>;
  const { stats, binding, consumers, settings } = data;
  return (
    <section>
      <h1>
        Topic <code>{topic}</code>{' '}
        {stats?.paused && (
          <span class="state dead" id="topic-paused">
            paused{stats.pausedUntil ? ` until ${time(stats.pausedUntil)}` : ''}
          </span>
        )}
      </h1>
      {dialog}
      {stats ? (
        <table id="topic-counts">
          <thead>
            <tr>
              {STATES.map((s) => (
                <th class="num">{s}</th>
              ))}
              <th>next due</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              {STATES.map((s) => (
                <td class="num" data-state={s}>
                  {count(stats.counts[s] ?? 0)}
                </td>
              ))}
              <td>{stats.nextDueAt ? `${time(stats.nextDueAt)} (${duration(stats.nextDueAt - Date.now())})` : '—'}</td>
            </tr>
          </tbody>
        </table>
      ) : (
        <p class="muted">No jobs in this topic.</p>
      )}
      <div class="controls links">
        <button onClick={toggle}>{stats?.paused ? 'Resume' : 'Pause'}</button>
        <a href={href('/jobs', { topic })}>jobs</a>
        <a href={href('/running', { topic })}>reserved now</a>
        <a href={href('/due', { topic })}>due times</a>
        <a href={href('/dead', { topic })}>dead letters</a>
        <a href={href('/bulk', { topic })}>act on many</a>
      </div>
      <TopicCharts topic={topic} window={windowOf(params)} />
      <TopicRateLimit topic={topic} settings={settings} ask={ask} changed={reload} />
      <TopicGroupConcurrency topic={topic} settings={settings} ask={ask} changed={reload} />
      <TopicRateLimit topic={topic} settings={settings} ask={ask} changed={reload} field="groupRateLimit" />
      <TopicGroupPauses topic={topic} ask={ask} />
      <h2>Consumers</h2>
      {consumers.length === 0 ? (
        <p class="muted">Nobody is waiting on this topic now.</p>
      ) : (
        <ul id="topic-consumers">
          {consumers.map((c) => (
            <li>
              {c.kind} on {c.node} {c.remote && <span class="muted">from {c.remote}</span>} since {time(c.since)}
            </li>
          ))}
        </ul>
      )}
      <h2>Delivery</h2>
      {binding ? (
        <p id="topic-binding">
          Delivered to a <strong>{binding.sink.type}</strong> sink
          {binding.sink['name'] ? ` (${String(binding.sink['name'])})` : ''}:{' '}
          <a href={href('/sinks', { topic })}>see the binding</a>
        </p>
      ) : (
        <p class="muted">
          A pull topic (no delivery binding). <a href={href('/sinks', { topic })}>Bind it to a sink</a>
        </p>
      )}
    </section>
  );
}
