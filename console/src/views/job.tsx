import { useState } from 'preact/hooks';
import { get, post, type HistoryEntry, type Job } from '../api.js';
import { duration, time } from '../format.js';
import { useLoad } from './use-load.js';

/** One job: its fields, body and timeline (history), with the actions its state allows. */
export function JobPage({ id }: { id: string }) {
  const { data, error, reload } = useLoad<{ job: Job; history: HistoryEntry[] }>(
    () => get(`/v1/jobs/${encodeURIComponent(id)}?history=true`),
    [id],
  );
  const [message, setMessage] = useState('');
  const [delay, setDelay] = useState('10m');
  /** Runs an action; `describe` turns its answer into the message (default "done"). */
  const act = async <T,>(what: string, run: () => Promise<T>, describe: (answer: T) => string = () => 'done') => {
    setMessage('');
    try {
      setMessage(`${what}: ${describe(await run())}`);
    } catch (err) {
      setMessage(`${what}: ${(err as Error).message}`);
    }
    reload();
  };
  const path = `/v1/jobs/${encodeURIComponent(id)}`;
  if (error) return <p class="error">{error}</p>;
  if (!data) return <p class="muted">Loading…</p>;
  const { job, history } = data;
  const open = ['delayed', 'ready', 'reserved'].includes(job.state);
  return (
    <section>
      <h1>
        Job <code>{job.id}</code>{' '}
        <span class={`state ${job.state}`} id="job-state">
          {job.state}
        </span>
      </h1>
      <dl class="fields">
        <dt>topic</dt>
        <dd>{job.topic}</dd>
        <dt>bizKey</dt>
        <dd>{job.bizKey ?? '—'}</dd>
        <dt>tag</dt>
        <dd>{job.tag ?? '—'}</dd>
        <dt>due</dt>
        <dd>
          {time(job.runAt)} ({duration(job.runAt - Date.now())})
        </dd>
        <dt>attempts</dt>
        <dd>{job.attempts}</dd>
        {job.lastError && (
          <>
            <dt>last error</dt>
            <dd class="error">{job.lastError}</dd>
          </>
        )}
      </dl>
      <div class="controls" id="actions">
        {open && (
          <button onClick={() => act('cancel', () => post(`${path}/cancel`, { reason: 'cancelled in the console' }))}>
            Cancel
          </button>
        )}
        {(job.state === 'delayed' || job.state === 'ready') && (
          <>
            <input
              name="delay"
              value={delay}
              onInput={(e) => setDelay((e.target as HTMLInputElement).value)}
              size={6}
            />
            <button onClick={() => act('reschedule', () => post(`${path}/reschedule`, { delayMs: delay }))}>
              Reschedule
            </button>
          </>
        )}
        {job.state === 'dead' && (
          <button onClick={() => act('redrive', () => post('/v1/dead/redrive', { ids: [job.id] }))}>Redrive</button>
        )}
        <button
          onClick={() =>
            act(
              'restore',
              () => post<{ restored: number; alreadyPresent: number }>(`${path}/restore`),
              (s) => `restored ${s.restored}, already present ${s.alreadyPresent}`,
            )
          }
          title="push the journal's copy back into the store"
        >
          Restore from journal
        </button>
      </div>
      {message && <p id="action-message">{message}</p>}
      <h2>Timeline</h2>
      <ol class="timeline" id="timeline">
        {history.map((h) => (
          <li data-event={h.event}>
            <time>{time(h.at)}</time> <strong>{h.event}</strong> → {h.state}{' '}
            <span class="muted">
              attempt {h.attempt} · {h.node}
            </span>
            {h.reason && <div class="muted">{h.reason}</div>}
          </li>
        ))}
      </ol>
      <h2>Body</h2>
      <pre id="job-body">{JSON.stringify(job.body, null, 2)}</pre>
    </section>
  );
}
