import { useState } from 'preact/hooks';
import { del, get, post, type Job, type Schedule } from '../api.js';
import { span, time } from '../format.js';
import { href } from '../router.js';
import { useConfirm } from './confirm.js';
import { FireList } from './fire-list.js';
import { ScheduleEditor } from './schedule-editor.js';
import { useLoad } from './use-load.js';

const ticking = (s: Schedule): string => (s.cron !== null ? `cron ${s.cron}` : `every ${span(s.everyMs!)}`);

/** Every schedule (GET /v1/schedules): how it ticks, when it fires next, its latest job; pause and resume. */
export function Schedules() {
  const { data, error, reload } = useLoad<{ schedules: Schedule[] }>(() => get('/v1/schedules'), [], 5000);
  const { ask, dialog } = useConfirm();
  const toggle = async (s: Schedule) => {
    if (
      !s.paused &&
      !(await ask(`Pause ${s.name}? It fires no job until resumed; ticks in between are not fired.`, `Pause ${s.name}`))
    )
      return;
    await post(`/v1/schedules/${encodeURIComponent(s.name)}/${s.paused ? 'resume' : 'pause'}`).catch((err: Error) =>
      alert(err.message),
    );
    reload();
  };
  return (
    <section>
      <h1>Schedules</h1>
      {dialog}
      <div class="controls">
        <a class="button" href={href('/new-schedule')} id="new-schedule">
          New schedule
        </a>
      </div>
      {error && <p class="error">{error}</p>}
      <table id="schedules">
        <thead>
          <tr>
            <th>name</th>
            <th>topic</th>
            <th>ticks</th>
            <th>zone</th>
            <th class="num">fired</th>
            <th>next fire</th>
            <th>last fire</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {data?.schedules.map((s) => (
            <tr data-name={s.name}>
              <td>
                <a href={href(`/schedule/${s.name}`)}>{s.name}</a>
              </td>
              <td>{s.topic}</td>
              <td>
                <code>{ticking(s)}</code>
              </td>
              <td>{s.timeZone}</td>
              <td class="num">{s.fired}</td>
              <td data-field="next">{s.nextFireAt === null ? '—' : time(s.nextFireAt, s.timeZone)}</td>
              <td>{s.lastJobId ? <a href={href(`/job/${s.lastJobId}`)}>{time(s.lastFiredAt, s.timeZone)}</a> : '—'}</td>
              <td>
                <button onClick={() => toggle(s)}>{s.paused ? 'paused: resume' : 'pause'}</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && data.schedules.length === 0 && <p class="muted">No schedules.</p>}
    </section>
  );
}

interface Fires {
  next: number[];
  last: { tickAt: number; jobId: string; job: Job }[];
}

/** One schedule: its definition (editable), its next ticks with DST changes marked, its latest fires and their jobs. */
export function SchedulePage({ name }: { name: string }) {
  const path = `/v1/schedules/${encodeURIComponent(name)}`;
  const [message, setMessage] = useState('');
  const [editing, setEditing] = useState(false);
  const { ask, dialog } = useConfirm();
  const { data, error, reload } = useLoad<{ schedule: Schedule; fires: Fires }>(
    async () => ({
      schedule: (await get<{ schedule: Schedule }>(path)).schedule,
      fires: await get<Fires>(`${path}/fires?next=10&last=10`),
    }),
    [name],
    5000,
  );
  if (error) return <p class="error">{error}</p>;
  if (!data) return <p class="muted">Loading…</p>;
  const { schedule: s, fires } = data;
  const toggle = async () => {
    if (
      !s.paused &&
      !(await ask(`Pause ${s.name}? It fires no job until resumed; ticks in between are not fired.`, 'Pause'))
    )
      return;
    try {
      await post(`${path}/${s.paused ? 'resume' : 'pause'}`);
      setMessage(s.paused ? 'resumed' : 'paused');
    } catch (err) {
      setMessage((err as Error).message);
    }
    reload();
  };
  const remove = async () => {
    if (
      !(await ask(`Delete ${s.name}? It stops firing; the ${s.fired} jobs it already pushed stay.`, `Delete ${s.name}`))
    )
      return;
    try {
      await del(path);
      location.hash = href('/schedules');
    } catch (err) {
      setMessage((err as Error).message);
    }
  };
  return (
    <section>
      <h1>
        Schedule <code>{s.name}</code>{' '}
        <span class={`state ${s.paused ? 'dead' : 'ready'}`} id="schedule-state">
          {s.paused ? 'paused' : 'active'}
        </span>
      </h1>
      {dialog}
      <dl class="fields">
        <dt>topic</dt>
        <dd>
          <a href={href(`/topic/${s.topic}`)}>{s.topic}</a>
        </dd>
        <dt>ticks</dt>
        <dd>
          <code>{ticking(s)}</code> in {s.timeZone}
        </dd>
        <dt>window</dt>
        <dd>
          {time(s.startAt, s.timeZone)} … {time(s.endAt, s.timeZone)}
        </dd>
        <dt>fired</dt>
        <dd>
          {s.fired}
          {s.maxFires !== null && ` of ${s.maxFires}`}
        </dd>
        <dt>missed ticks</dt>
        <dd>{s.missed === 'each' ? `each (at most ${s.catchUpMax})` : s.missed}</dd>
      </dl>
      <div class="controls">
        <button onClick={toggle}>{s.paused ? 'Resume' : 'Pause'}</button>
        <button onClick={() => setEditing(!editing)}>{editing ? 'Close the editor' : 'Edit'}</button>
        <button onClick={remove}>Delete</button>
      </div>
      {message && <p id="action-message">{message}</p>}
      {editing && <ScheduleEditor schedule={s} onSaved={reload} />}
      <h2>Next fires</h2>
      {fires.next.length === 0 && <p class="muted">None (paused, ended or out of fires).</p>}
      <FireList fires={fires.next} zone={s.timeZone} id="next-fires" />
      <h2>Last fires</h2>
      <table id="last-fires">
        <thead>
          <tr>
            <th>tick</th>
            <th>job</th>
            <th>state</th>
            <th class="num">attempts</th>
          </tr>
        </thead>
        <tbody>
          {fires.last.map((f) => (
            <tr data-id={f.jobId}>
              <td>{time(f.tickAt, s.timeZone)}</td>
              <td>
                <a href={href(`/job/${f.jobId}`)}>{f.jobId}</a>
              </td>
              <td>
                <span class={`state ${f.job.state}`}>{f.job.state}</span>
              </td>
              <td class="num">{f.job.attempts}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {fires.last.length === 0 && <p class="muted">No fires yet.</p>}
    </section>
  );
}
