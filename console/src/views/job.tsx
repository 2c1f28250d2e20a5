import { useState } from 'preact/hooks';
import { get, post, type HistoryEntry, type Job, type Outcome } from '../api.js';
import { duration, span, time } from '../format.js';
import { href } from '../router.js';
import { useConfirm } from './confirm.js';
import { BothZones, dedupWindow, describeBackoff, nextRetry } from './job-fields.js';
import { useLoad } from './use-load.js';

/** Whether the server has a SQL journal (GET /v1/journal says `available`); asked once per page load. */
let journal: Promise<boolean> | undefined;
const hasJournal = (): Promise<boolean> =>
  (journal ??= get<{ available?: boolean }>('/v1/journal').then(
    (status) => status.available === true,
    () => false,
  ));

interface JobView {
  job: Job;
  history: HistoryEntry[];
  outcome?: Outcome;
  journal: boolean;
}

/** One job in full: fields, outcome, timeline and body, with the actions its state allows (each confirmed). */
export function JobPage({ id }: { id: string }) {
  const path = `/v1/jobs/${encodeURIComponent(id)}`;
  const { data, error, reload } = useLoad<JobView>(
    async () => ({ ...(await get(`${path}?history=true`)), journal: await hasJournal() }),
    [id],
  );
  const { ask, dialog } = useConfirm();
  const [message, setMessage] = useState('');
  const [delay, setDelay] = useState('10m');
  /** Asks, then runs an action; `describe` turns its answer into the message (default "done"). */
  const act = async <T,>(
    what: string,
    question: string,
    run: () => Promise<T>,
    describe: (a: T) => string = () => 'done',
  ) => {
    if (!(await ask(question, what[0]!.toUpperCase() + what.slice(1)))) return;
    setMessage('');
    try {
      setMessage(`${what}: ${describe(await run())}`);
    } catch (err) {
      setMessage(`${what}: ${(err as Error).message}`);
    }
    reload();
  };
  if (error) return <p class="error">{error}</p>;
  if (!data) return <p class="muted">Loading…</p>;
  const { job, history, outcome } = data;
  const dedup = dedupWindow(history);
  const open = ['delayed', 'ready', 'reserved'].includes(job.state);
  return (
    <section>
      <h1>
        Job <code>{job.id}</code>{' '}
        <span class={`state ${job.state}`} id="job-state">
          {job.state}
        </span>
      </h1>
      {dialog}
      <dl class="fields" id="job-fields">
        <dt>topic</dt>
        <dd>
          <a href={href(`/topic/${job.topic}`)}>{job.topic}</a>
        </dd>
        <dt>bizKey</dt>
        <dd>{job.bizKey ? <a href={href('/jobs', { bizKey: job.bizKey })}>{job.bizKey}</a> : '—'}</dd>
        <dt>tag</dt>
        <dd>{job.tag ?? '—'}</dd>
        {dedup && (
          <>
            <dt>dedup key</dt>
            <dd data-field="dedup">{dedup}</dd>
          </>
        )}
        <dt>group</dt>
        <dd data-field="group">{job.group ?? '—'}</dd>
        <dt>due</dt>
        <dd data-field="due">
          <BothZones at={job.runAt} /> ({duration(job.runAt - Date.now())})
        </dd>
        <dt>priority</dt>
        <dd data-field="priority">{job.priority}</dd>
        <dt>TTR</dt>
        <dd data-field="ttr">{span(job.ttrMs)} per attempt</dd>
        <dt>ttl</dt>
        <dd data-field="ttl">
          {job.ttlMs === null
            ? 'none'
            : `${span(job.ttlMs)}: expires at ${time(job.runAt + job.ttlMs)} if not reserved by then`}
        </dd>
        <dt>retry policy</dt>
        <dd data-field="retry">
          at most {job.retry.maxAttempts} attempts; backoff {describeBackoff(job.retry.backoff)}
        </dd>
        <dt>attempts</dt>
        <dd data-field="attempts">{job.attempts}</dd>
        <dt>next retry</dt>
        <dd data-field="next-retry">{nextRetry(job)}</dd>
        <dt>created</dt>
        <dd>
          <BothZones at={job.createdAt} />
        </dd>
        {job.readyAt !== null && (
          <>
            <dt>ready</dt>
            <dd>
              <BothZones at={job.readyAt} />
            </dd>
          </>
        )}
        {job.reservedAt !== null && (
          <>
            <dt>reserved</dt>
            <dd>
              <BothZones at={job.reservedAt} />
            </dd>
          </>
        )}
        {job.deadlineAt !== null && (
          <>
            <dt>TTR deadline</dt>
            <dd data-field="deadline">
              <BothZones at={job.deadlineAt} /> ({duration(job.deadlineAt - Date.now())})
            </dd>
          </>
        )}
        {job.finishedAt !== null && (
          <>
            <dt>ended</dt>
            <dd>
              <BothZones at={job.finishedAt} />
            </dd>
          </>
        )}
        {job.lastError && (
          <>
            <dt>last error</dt>
            <dd class="error">{job.lastError}</dd>
          </>
        )}
      </dl>
      <h2>Outcome</h2>
      {outcome ? (
        <div id="outcome">
          <p class="muted">reported {time(outcome.at)}</p>
          {'result' in outcome && (
            <>
              <h3>result</h3>
              <pre id="outcome-result">{JSON.stringify(outcome.result, null, 2)}</pre>
            </>
          )}
          {outcome.error && (
            <>
              <h3>error{outcome.error.code ? ` ${outcome.error.code}` : ''}</h3>
              <pre id="outcome-error" class="error">
                {outcome.error.message}
                {outcome.error.details !== undefined && `\n${JSON.stringify(outcome.error.details, null, 2)}`}
              </pre>
            </>
          )}
        </div>
      ) : (
        <p class="muted" id="outcome">
          None reported.
        </p>
      )}
      <div class="controls" id="actions">
        {open && (
          <button
            onClick={() =>
              act(
                'cancel',
                job.state === 'reserved'
                  ? `Cancel ${job.id}? It is reserved now: its consumer may still be running attempt ${job.attempts}, and its finish will be refused.`
                  : `Cancel ${job.id}? It will never be delivered (it is ${job.state}).`,
                () => post(`${path}/cancel`, { reason: 'cancelled in the console' }),
              )
            }
          >
            Cancel
          </button>
        )}
        {job.state === 'delayed' && (
          <button
            id="run-now"
            onClick={() =>
              act(
                'run now',
                `Run ${job.id} now? It becomes ready at once instead of in ${duration(job.runAt - Date.now())}${
                  job.attempts > 0 ? ` (it is waiting to retry after attempt ${job.attempts})` : ''
                }.`,
                () => post(`${path}/run-now`),
              )
            }
          >
            Run now
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
            <button
              onClick={() =>
                act(
                  'reschedule',
                  `Move ${job.id} to ${delay} from now (it is due ${duration(job.runAt - Date.now())})?`,
                  () => post(`${path}/reschedule`, { delayMs: delay }),
                )
              }
            >
              Reschedule
            </button>
          </>
        )}
        {job.state === 'dead' && (
          <button
            onClick={() =>
              act('redrive', `Redrive ${job.id}? It becomes ready now with its attempts reset to 0.`, () =>
                post('/v1/dead/redrive', { ids: [job.id] }),
              )
            }
          >
            Redrive
          </button>
        )}
        {data.journal && (
          <button
            onClick={() =>
              act(
                'restore',
                `Restore ${job.id} from the journal? It is pushed back into the store if the store lost it.`,
                () => post<{ restored: number; alreadyPresent: number }>(`${path}/restore`),
                (s) => `restored ${s.restored}, already present ${s.alreadyPresent}`,
              )
            }
            title="push the journal's copy back into the store"
          >
            Restore from journal
          </button>
        )}
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
