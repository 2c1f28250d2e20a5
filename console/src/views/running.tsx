import { get, query, type Consumer, type Held } from '../api.js';
import { duration, time } from '../format.js';
import { href, setParams } from '../router.js';
import { Pager } from './pager.js';
import { useLoad } from './use-load.js';

/**
 * What is running now: the reserved jobs, earliest TTR deadline first, with the node holding each
 * (GET /v1/reserved), and who is waiting for jobs of which topics (GET /v1/consumers), on every process.
 */
export function Running({ params }: { params: URLSearchParams }) {
  const topic = params.get('topic') ?? '';
  const cursor = params.get('cursor') ?? '';
  const limit = params.get('limit') ?? '100';
  const reserved = useLoad<{ reservations: Held[]; next: string | null }>(
    () => get(`/v1/reserved${query({ topic, cursor, limit })}`),
    [topic, cursor, limit],
    2000,
  );
  const consumers = useLoad<{ consumers: Consumer[]; total: number }>(
    () => get(`/v1/consumers${query({ topic })}`),
    [topic],
    2000,
  );
  const now = Date.now();
  return (
    <section>
      <h1>Running now</h1>
      <form
        // keyed by the URL: its fields show what the URL says, and what is typed survives a refresh
        key={params.toString()}
        class="controls"
        onSubmit={(e) => {
          e.preventDefault();
          const value = new FormData(e.currentTarget as HTMLFormElement).get('topic');
          setParams({ topic: String(value ?? '').trim(), cursor: null });
        }}
      >
        <input name="topic" placeholder="topic (all)" defaultValue={topic} />
        <button type="submit">Show</button>
      </form>
      <h2>Reserved jobs</h2>
      {reserved.error && <p class="error">{reserved.error}</p>}
      <table id="reserved">
        <thead>
          <tr>
            <th>job</th>
            <th>topic</th>
            <th>held by node</th>
            <th>reserved</th>
            <th>TTR deadline</th>
            <th class="num">attempt</th>
          </tr>
        </thead>
        <tbody>
          {reserved.data?.reservations.map((r) => (
            <tr data-id={r.job.id}>
              <td>
                <a href={href(`/job/${r.job.id}`)}>{r.job.id}</a>
              </td>
              <td>{r.job.topic}</td>
              <td data-field="node">{r.node ?? '—'}</td>
              <td>{time(r.job.reservedAt)}</td>
              <td data-field="deadline" class={r.deadlineAt < now ? 'error' : ''}>
                {time(r.deadlineAt)} ({duration(r.deadlineAt - now)})
              </td>
              <td class="num">
                {r.job.attempts} of {r.job.retry.maxAttempts}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {reserved.data && reserved.data.reservations.length === 0 && <p class="muted">No job is reserved.</p>}
      {reserved.data && (
        <Pager cursor={cursor || null} next={reserved.data.next} shown={reserved.data.reservations.length} />
      )}
      <h2>Consumers</h2>
      {consumers.error && <p class="error">{consumers.error}</p>}
      <table id="consumers">
        <thead>
          <tr>
            <th>kind</th>
            <th>topics</th>
            <th>node</th>
            <th>from</th>
            <th>since</th>
            <th class="num">holding</th>
          </tr>
        </thead>
        <tbody>
          {consumers.data?.consumers.map((c) => (
            <tr data-id={c.id} data-kind={c.kind}>
              <td>{c.kind}</td>
              <td>
                {c.topics.map((t, i) => (
                  <>
                    {i > 0 && ', '}
                    <a href={href(`/topic/${t}`)}>{t}</a>
                  </>
                ))}
              </td>
              <td data-field="node">{c.node}</td>
              <td>{c.remote ?? '—'}</td>
              <td>
                {time(c.since)} ({duration(c.since - now)})
              </td>
              <td class="num">{c.held}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {consumers.data && consumers.data.total === 0 && (
        <p class="muted">Nobody is waiting for jobs{topic ? ` of ${topic}` : ''} now.</p>
      )}
      {consumers.data && consumers.data.total > consumers.data.consumers.length && (
        <p class="muted">
          {consumers.data.consumers.length} of {consumers.data.total} shown: pick a topic to see the others.
        </p>
      )}
    </section>
  );
}
