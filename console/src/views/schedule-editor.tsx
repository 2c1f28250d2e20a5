import { useState } from 'preact/hooks';
import { ApiError, post, put, type Schedule } from '../api.js';
import { wallTime } from '../format.js';
import { href } from '../router.js';
import { FireList } from './fire-list.js';

interface Draft {
  name: string;
  topic: string;
  mode: 'cron' | 'every';
  cron: string;
  every: string;
  timeZone: string;
  startAt: string;
  endAt: string;
  maxFires: string;
  missed: 'skip' | 'once' | 'each';
  body: string;
  priority: string;
  retry: string;
}

const local = (at: number | null, zone: string): string =>
  at === null ? '' : wallTime(at, zone).replace(' ', 'T').slice(0, 16);

function draftOf(s: Schedule | undefined): Draft {
  const job = (s?.job ?? {}) as { body?: unknown; priority?: number; retry?: unknown };
  const zone = s?.timeZone ?? 'UTC';
  return {
    name: s?.name ?? '',
    topic: s?.topic ?? '',
    mode: s?.everyMs ? 'every' : 'cron',
    cron: s?.cron ?? '0 0 2 * * *',
    every: s?.everyMs ? `${s.everyMs}` : '1h',
    timeZone: zone,
    startAt: local(s?.startAt ?? null, zone),
    endAt: local(s?.endAt ?? null, zone),
    maxFires: s?.maxFires === null || s?.maxFires === undefined ? '' : String(s.maxFires),
    missed: s?.missed ?? 'once',
    body: job.body === undefined ? '' : JSON.stringify(job.body, null, 2),
    priority: job.priority === undefined ? '' : String(job.priority),
    retry: typeof job.retry === 'string' ? job.retry : '',
  };
}

/** The PUT body of a draft; a field the operator left empty is left out. Bad JSON names `job.body`. */
function bodyOf(d: Draft): Record<string, unknown> {
  let body: unknown;
  if (d.body.trim()) {
    try {
      body = JSON.parse(d.body);
    } catch {
      throw new ApiError(400, 'E_VALIDATION', 'job.body: is not JSON', 'job.body');
    }
  }
  const job = {
    ...(body !== undefined ? { body } : {}),
    ...(d.priority ? { priority: Number(d.priority) } : {}),
    ...(d.retry ? { retry: d.retry } : {}),
  };
  return {
    topic: d.topic,
    ...(d.mode === 'cron' ? { cron: d.cron } : { everyMs: /^\d+$/.test(d.every) ? Number(d.every) : d.every }),
    timeZone: d.timeZone,
    // local wall times: the server reads them in timeZone
    startAt: d.startAt || null,
    endAt: d.endAt || null,
    maxFires: d.maxFires ? Number(d.maxFires) : null,
    missed: d.missed,
    job,
  };
}

/**
 * Creates or edits a schedule where it is seen: every field of PUT /v1/schedules/{name}, the coming fires
 * previewed before saving (POST …/preview) with their DST changes marked, errors naming the field.
 */
export function ScheduleEditor({ schedule, onSaved }: { schedule?: Schedule; onSaved?: () => void }) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(schedule));
  const [preview, setPreview] = useState<{ next: number[]; timeZone: string } | null>(null);
  const [error, setError] = useState<{ message: string; field?: string } | null>(null);
  const [saved, setSaved] = useState('');
  const set = (patch: Partial<Draft>) => (setDraft({ ...draft, ...patch }), setPreview(null), setSaved(''));
  const path = `/v1/schedules/${encodeURIComponent(draft.name)}`;
  const attempt = async (run: () => Promise<void>) => {
    setError(null);
    try {
      if (!draft.name) throw new ApiError(400, 'E_VALIDATION', 'name: is required', 'name');
      await run();
    } catch (err) {
      setError({
        message: (err as Error).message,
        ...(err instanceof ApiError && err.field ? { field: err.field } : {}),
      });
    }
  };
  const doPreview = () => attempt(async () => setPreview(await post(`${path}/preview?next=10`, bodyOf(draft))));
  const save = () =>
    attempt(async () => {
      await put(path, bodyOf(draft));
      setSaved(schedule ? 'saved' : 'created');
      if (schedule) onSaved?.();
      else location.hash = href(`/schedule/${draft.name}`);
    });
  const text = (field: keyof Draft, placeholder: string, attrs: Record<string, unknown> = {}) => (
    <input
      name={field}
      placeholder={placeholder}
      value={draft[field]}
      class={error?.field === field ? 'invalid' : ''}
      onInput={(e) => set({ [field]: (e.target as HTMLInputElement).value } as Partial<Draft>)}
      {...attrs}
    />
  );
  return (
    <section class="editor" id="schedule-editor">
      {!schedule && <h1>New schedule</h1>}
      <div class="form-grid">
        <label>name</label>
        {schedule ? <code>{draft.name}</code> : text('name', 'nightly-report')}
        <label>topic</label>
        {text('topic', 'reports')}
        <label>ticks</label>
        <span class="controls">
          <select
            name="mode"
            value={draft.mode}
            onChange={(e) => set({ mode: (e.target as HTMLSelectElement).value as Draft['mode'] })}
          >
            <option value="cron">by cron</option>
            <option value="every">every</option>
          </select>
          {draft.mode === 'cron' ? text('cron', 'sec min hour day month weekday') : text('every', '1h, 30s or ms')}
        </span>
        <label>time zone</label>
        {text('timeZone', 'Europe/Berlin')}
        <label>from / until</label>
        <span class="controls">
          {text('startAt', '', { type: 'datetime-local' })} {text('endAt', '', { type: 'datetime-local' })}
          <span class="muted">wall time in the zone above</span>
        </span>
        <label>at most</label>
        <span class="controls">
          {text('maxFires', 'unlimited', { type: 'number', min: 1 })} fires; missed ticks:
          <select
            name="missed"
            value={draft.missed}
            onChange={(e) => set({ missed: (e.target as HTMLSelectElement).value as Draft['missed'] })}
          >
            <option value="skip">skip</option>
            <option value="once">the latest once</option>
            <option value="each">each</option>
          </select>
        </span>
        <label>job body</label>
        <textarea
          name="body"
          rows={4}
          class={error?.field === 'job.body' ? 'invalid' : ''}
          placeholder='{"report": "nightly"}'
          value={draft.body}
          onInput={(e) => set({ body: (e.target as HTMLTextAreaElement).value })}
        />
        <label>job priority / retry</label>
        <span class="controls">
          {text('priority', '0', { type: 'number' })} {text('retry', 'e.g. 1m,5m,30m')}
        </span>
      </div>
      <div class="controls">
        <button onClick={doPreview}>Preview next fires</button>
        <button onClick={save}>{schedule ? 'Save changes' : 'Create'}</button>
        {saved && <span id="editor-saved">{saved}</span>}
      </div>
      {error && (
        <p class="error" id="editor-error" data-field={error.field ?? ''}>
          {error.message}
        </p>
      )}
      {preview && (
        <>
          <h3>Would fire at</h3>
          {preview.next.length === 0 && <p class="muted">No tick (ended or out of fires).</p>}
          <FireList fires={preview.next} zone={preview.timeZone} id="preview-fires" />
        </>
      )}
    </section>
  );
}
