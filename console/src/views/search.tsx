import { useState } from 'preact/hooks';
import { ApiError, get, query, type Job } from '../api.js';
import { duration } from '../format.js';
import { useLoad } from './use-load.js';

const STATES = ['', 'delayed', 'ready', 'reserved', 'finished', 'dead', 'cancelled', 'expired'];

/** Job search: by id (opens the job) or by topic, state, bizKey and tag (GET /v1/jobs). */
export function Search({ params }: { params: URLSearchParams }) {
  const [form, setForm] = useState({
    id: '',
    topic: params.get('topic') ?? '',
    state: params.get('state') ?? '',
    bizKey: params.get('bizKey') ?? '',
    tag: params.get('tag') ?? '',
  });
  const [applied, setApplied] = useState(form);
  const { data, error } = useLoad<{ jobs: Job[]; next: string | null }>(
    () =>
      get(
        `/v1/jobs${query({ topic: applied.topic, state: applied.state, bizKey: applied.bizKey, tag: applied.tag, limit: 100 })}`,
      ),
    [applied],
  );
  const [idError, setIdError] = useState('');
  const field = (name: keyof typeof form, placeholder: string) => (
    <input
      name={name}
      placeholder={placeholder}
      value={form[name]}
      onInput={(e) => setForm({ ...form, [name]: (e.target as HTMLInputElement).value })}
    />
  );
  const submit = async (e: Event) => {
    e.preventDefault();
    setIdError('');
    if (form.id.trim()) {
      try {
        await get(`/v1/jobs/${encodeURIComponent(form.id.trim())}`);
        location.hash = `#/job/${encodeURIComponent(form.id.trim())}`;
      } catch (err) {
        setIdError(err instanceof ApiError ? err.message : String(err));
      }
      return;
    }
    setApplied({ ...form });
  };
  return (
    <section>
      <h1>Jobs</h1>
      <form class="controls" onSubmit={submit}>
        {field('id', 'job id')}
        {field('topic', 'topic')}
        <select
          name="state"
          value={form.state}
          onChange={(e) => setForm({ ...form, state: (e.target as HTMLSelectElement).value })}
        >
          {STATES.map((s) => (
            <option value={s}>{s || 'any state'}</option>
          ))}
        </select>
        {field('bizKey', 'bizKey')}
        {field('tag', 'tag')}
        <button type="submit">Search</button>
      </form>
      {(idError || error) && <p class="error">{idError || error}</p>}
      <table id="jobs">
        <thead>
          <tr>
            <th>id</th>
            <th>topic</th>
            <th>state</th>
            <th>bizKey</th>
            <th>tag</th>
            <th>due</th>
            <th class="num">attempts</th>
          </tr>
        </thead>
        <tbody>
          {data?.jobs.map((j) => (
            <tr data-id={j.id}>
              <td>
                <a href={`#/job/${encodeURIComponent(j.id)}`}>{j.id}</a>
              </td>
              <td>{j.topic}</td>
              <td class={`state ${j.state}`}>{j.state}</td>
              <td>{j.bizKey ?? ''}</td>
              <td>{j.tag ?? ''}</td>
              <td>{duration(j.runAt - Date.now())}</td>
              <td class="num">{j.attempts}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && data.jobs.length === 0 && <p class="muted">No jobs match.</p>}
      {data?.next && <p class="muted">Showing the first 100; narrow the search to see others.</p>}
    </section>
  );
}
