import { useState } from 'preact/hooks';
import { ApiError, get, query, STATES, type Job } from '../api.js';
import { duration, time } from '../format.js';
import { href, setParams } from '../router.js';
import { Pager } from './pager.js';
import { useLoad } from './use-load.js';

const FIELDS = ['topic', 'state', 'bizKey', 'tag'] as const;

/**
 * Job search: by id (opens the job) or by topic, state, bizKey and tag (GET /v1/jobs), in id order, paged by
 * cursor; the filters, page size and page are kept in the URL.
 */
export function Search({ params }: { params: URLSearchParams }) {
  const filter = Object.fromEntries(FIELDS.map((f) => [f, params.get(f) ?? ''])) as Record<
    (typeof FIELDS)[number],
    string
  >;
  const cursor = params.get('cursor') ?? '';
  const limit = params.get('limit') ?? '100';
  const { data, error } = useLoad<{ jobs: Job[]; next: string | null }>(
    () => get(`/v1/jobs${query({ ...filter, limit, cursor })}`),
    [JSON.stringify(filter), cursor, limit],
  );
  const [idError, setIdError] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const id = String(form.get('id') ?? '').trim();
    setIdError('');
    if (id) {
      try {
        await get(`/v1/jobs/${encodeURIComponent(id)}`);
        location.hash = href(`/job/${id}`);
      } catch (err) {
        setIdError(err instanceof ApiError ? err.message : String(err));
      }
      return;
    }
    setParams({ ...Object.fromEntries(FIELDS.map((f) => [f, String(form.get(f) ?? '').trim()])), cursor: null });
  };
  return (
    <section>
      <h1>Jobs</h1>
      {/* keyed by the URL: its fields show what the URL says, and what is typed survives a refresh */}
      <form key={params.toString()} class="controls" onSubmit={submit}>
        <input name="id" placeholder="job id" />
        <input name="topic" placeholder="topic" defaultValue={filter.topic} />
        <select name="state" value={filter.state}>
          <option value="">any state</option>
          {STATES.map((s) => (
            <option value={s}>{s}</option>
          ))}
        </select>
        <input name="bizKey" placeholder="bizKey" defaultValue={filter.bizKey} />
        <input name="tag" placeholder="tag" defaultValue={filter.tag} />
        <button type="submit">Search</button>
        <select
          name="limit"
          value={limit}
          onChange={(e) => setParams({ limit: (e.target as HTMLSelectElement).value, cursor: null })}
        >
          {['20', '100', '500', '1000'].map((n) => (
            <option value={n}>{n} a page</option>
          ))}
        </select>
        {(filter.topic || filter.bizKey || filter.tag) && (
          <a href={href('/bulk', { topic: filter.topic, bizKey: filter.bizKey, tag: filter.tag, state: filter.state })}>
            act on all of them…
          </a>
        )}
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
                <a href={href(`/job/${j.id}`)}>{j.id}</a>
              </td>
              <td>{j.topic}</td>
              <td class={`state ${j.state}`}>{j.state}</td>
              <td>{j.bizKey ?? ''}</td>
              <td>{j.tag ?? ''}</td>
              <td title={time(j.runAt)}>{duration(j.runAt - Date.now())}</td>
              <td class="num">{j.attempts}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && data.jobs.length === 0 && (
        <p class="muted">
          {data.next ? 'None in this stretch of the jobs; the next page looks further.' : 'No jobs match.'}
        </p>
      )}
      {data && <Pager cursor={cursor || null} next={data.next} shown={data.jobs.length} />}
    </section>
  );
}
