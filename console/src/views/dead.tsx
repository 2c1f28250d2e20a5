import { useState } from 'preact/hooks';
import { get, post, query, type Job, type TopicPage } from '../api.js';
import { count, time } from '../format.js';
import { href, setParams } from '../router.js';
import { useConfirm } from './confirm.js';
import { Pager } from './pager.js';
import { useLoad } from './use-load.js';

/** Redrive by topic takes at most this many per call (POST /v1/dead/redrive). */
const REDRIVE_MAX = 100_000;

/**
 * Dead letters per topic (GET /v1/dead), paged by cursor; redriven one by one or all at once
 * (POST /v1/dead/redrive), each after a confirmation. The topic and page are the URL's.
 */
export function DeadLetters({ params }: { params: URLSearchParams }) {
  const { ask, dialog } = useConfirm();
  const [message, setMessage] = useState('');
  const cursor = params.get('cursor') ?? '';
  const topics = useLoad<TopicPage>(() => get('/v1/topics?has=dead&sort=dead&limit=1000'), []);
  const withDead = topics.data?.topics ?? [];
  const chosen = params.get('topic') || withDead[0]?.topic || '';
  const deadCount = withDead.find((t) => t.topic === chosen)?.counts['dead'] ?? 0;
  const dead = useLoad<{ jobs: Job[]; next: string | null } | null>(
    () => (chosen ? get(`/v1/dead${query({ topic: chosen, limit: 100, cursor })}`) : Promise.resolve(null)),
    [chosen, cursor],
  );
  const redrive = async (body: object, question: string, action: string) => {
    if (!(await ask(question, action))) return;
    try {
      const { count: n } = await post<{ count: number }>('/v1/dead/redrive', body);
      setMessage(`redriven: ${n}`);
    } catch (err) {
      setMessage((err as Error).message);
    }
    dead.reload();
    topics.reload();
  };
  return (
    <section>
      <h1>Dead letters</h1>
      {dialog}
      <div class="controls">
        <select
          name="topic"
          value={chosen}
          onChange={(e) => setParams({ topic: (e.target as HTMLSelectElement).value, cursor: null })}
        >
          {withDead.map((t) => (
            <option value={t.topic}>
              {t.topic} ({t.counts['dead']})
            </option>
          ))}
          {chosen && !withDead.some((t) => t.topic === chosen) && <option value={chosen}>{chosen}</option>}
        </select>
        {chosen && deadCount > 0 && (
          <button
            onClick={() =>
              redrive(
                { topic: chosen, limit: Math.min(deadCount, REDRIVE_MAX) },
                `Redrive the ${count(deadCount)} dead jobs of ${chosen}? Each becomes ready now with its attempts reset to 0.`,
                `Redrive ${count(deadCount)} jobs`,
              )
            }
          >
            Redrive all of {chosen}
          </button>
        )}
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
                <a href={href(`/job/${j.id}`)}>{j.id}</a>
              </td>
              <td>{time(j.finishedAt)}</td>
              <td class="num">{j.attempts}</td>
              <td class="error">{j.lastError}</td>
              <td>
                <button
                  onClick={() =>
                    redrive(
                      { ids: [j.id] },
                      `Redrive ${j.id}? It becomes ready now with its attempts reset to 0.`,
                      'Redrive',
                    )
                  }
                >
                  Redrive
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {dead.data && (
        <Pager cursor={cursor || null} next={dead.data.next} shown={dead.data.jobs.length} total={deadCount} />
      )}
    </section>
  );
}
