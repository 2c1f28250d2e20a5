import { useState } from 'preact/hooks';
import { get, post, query, type Job, type TopicStats } from '../api.js';
import { time } from '../format.js';
import { useLoad } from './use-load.js';

/** Dead letters per topic (GET /v1/dead), redriven one by one or all at once (POST /v1/dead/redrive). */
export function DeadLetters({ topic: initial }: { topic: string }) {
  const [topic, setTopic] = useState(initial);
  const [message, setMessage] = useState('');
  const topics = useLoad<{ topics: TopicStats[] }>(() => get('/v1/stats'), []);
  const withDead = topics.data?.topics.filter((t) => t.counts['dead']) ?? [];
  const chosen = topic || withDead[0]?.topic || '';
  const dead = useLoad<{ jobs: Job[] } | null>(
    () => (chosen ? get(`/v1/dead${query({ topic: chosen, limit: 100 })}`) : Promise.resolve(null)),
    [chosen],
  );
  const redrive = async (body: object) => {
    try {
      const { count } = await post<{ count: number }>('/v1/dead/redrive', body);
      setMessage(`redriven: ${count}`);
    } catch (err) {
      setMessage((err as Error).message);
    }
    dead.reload();
    topics.reload();
  };
  return (
    <section>
      <h1>Dead letters</h1>
      <div class="controls">
        <select name="topic" value={chosen} onChange={(e) => setTopic((e.target as HTMLSelectElement).value)}>
          {withDead.map((t) => (
            <option value={t.topic}>
              {t.topic} ({t.counts['dead']})
            </option>
          ))}
          {chosen && !withDead.some((t) => t.topic === chosen) && <option value={chosen}>{chosen}</option>}
        </select>
        {chosen && <button onClick={() => redrive({ topic: chosen })}>Redrive all of {chosen}</button>}
      </div>
      {message && <p id="dead-message">{message}</p>}
      {(dead.error || topics.error) && <p class="error">{dead.error || topics.error}</p>}
      {!chosen && <p class="muted">No dead letters.</p>}
      <table id="dead">
        <thead>
          <tr>
            <th>id</th>
            <th>died</th>
            <th class="num">attempts</th>
            <th>last error</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {dead.data?.jobs.map((j) => (
            <tr data-id={j.id}>
              <td>
                <a href={`#/job/${encodeURIComponent(j.id)}`}>{j.id}</a>
              </td>
              <td>{time(j.finishedAt)}</td>
              <td class="num">{j.attempts}</td>
              <td class="error">{j.lastError}</td>
              <td>
                <button onClick={() => redrive({ ids: [j.id] })}>Redrive</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
