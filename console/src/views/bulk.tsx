import { useRef, useState } from 'preact/hooks';
import { post, STATES } from '../api.js';
import { count, shownZone, wallTime } from '../format.js';
import { href, setParams } from '../router.js';
import { useConfirm } from './confirm.js';

const ACTIONS = {
  cancel: { verb: 'cancel', states: 'delayed, ready or reserved', done: 'cancelled' },
  reschedule: { verb: 'reschedule', states: 'delayed or ready', done: 'rescheduled' },
  redrive: { verb: 'redrive', states: 'dead', done: 'redriven' },
  delete: { verb: 'delete', states: 'finished, dead, cancelled or expired', done: 'deleted' },
} as const;
type Action = keyof typeof ACTIONS;
const SELECTOR = ['topic', 'bizKey', 'tag', 'state', 'dueFrom', 'dueTo'] as const;

interface Progress {
  phase: 'counting' | 'counted' | 'applying' | 'done' | 'stopped';
  matched: number;
  applied: number;
  error?: string;
}

/** A datetime-local value in the shown zone → epoch ms (UTC, or this browser's zone). */
function toEpoch(local: string): number | undefined {
  if (!local) return undefined;
  const at = shownZone() === 'UTC' ? Date.parse(`${local}Z`) : new Date(local).getTime();
  return Number.isNaN(at) ? undefined : at;
}
const toLocal = (at: string | null): string =>
  at ? wallTime(Number(at), shownZone()).replace(' ', 'T').slice(0, 16) : '';

/** What the selector picks, in words. */
const describe = (s: Record<string, string>): string =>
  SELECTOR.filter((k) => s[k])
    .map((k) => (k === 'dueFrom' || k === 'dueTo' ? `${k} ${wallTime(Number(s[k]), shownZone())}` : `${k}=${s[k]}`))
    .join(', ');

/**
 * Acting on many (POST /v1/jobs/bulk): pick jobs by topic, bizKey, tag, state and due range (kept in the URL),
 * count them with a dry run, confirm, and watch the action go through them a slice at a time (it can be
 * stopped between slices).
 */
export function BulkActions({ params }: { params: URLSearchParams }) {
  const selector: Record<string, string> = Object.fromEntries(SELECTOR.map((k) => [k, params.get(k) ?? '']));
  const action = (params.get('action') as Action | null) ?? 'cancel';
  const [shift, setShift] = useState(params.get('shiftMs') ?? '1h');
  const [reason, setReason] = useState('');
  const [progress, setProgress] = useState<Progress | null>(null);
  const stop = useRef(false);
  const { ask, dialog } = useConfirm();
  const body = () => ({
    action,
    selector: Object.fromEntries(
      SELECTOR.filter((k) => selector[k]).map((k) => [
        k,
        k === 'dueFrom' || k === 'dueTo' ? Number(selector[k]) : selector[k],
      ]),
    ),
    ...(action === 'reschedule' ? { shiftMs: /^-?\d+$/.test(shift) ? Number(shift) : shift } : {}),
    ...(action === 'cancel' && reason ? { reason } : {}),
  });

  /** Calls bulk slice after slice until `next` is null (or Stop); reports the sums as it goes. */
  const walk = async (dryRun: boolean, start: Progress): Promise<Progress> => {
    stop.current = false;
    let state = start;
    let cursor: string | null = null;
    do {
      const answer: { matched: number; applied: number; next: string | null } = await post('/v1/jobs/bulk', {
        ...body(),
        dryRun,
        limit: 1000,
        ...(cursor ? { cursor } : {}),
      });
      cursor = answer.next;
      state = {
        ...state,
        matched: dryRun ? state.matched + answer.matched : state.matched,
        applied: state.applied + answer.applied,
      };
      setProgress(state);
    } while (cursor && !stop.current);
    return { ...state, phase: cursor ? 'stopped' : dryRun ? 'counted' : 'done' };
  };
  const run = async (dryRun: boolean) => {
    try {
      if (dryRun) return setProgress(await walk(true, { phase: 'counting', matched: 0, applied: 0 }));
      const matched = progress?.matched ?? 0;
      const a = ACTIONS[action];
      const how = action === 'reschedule' ? ` by ${shift}` : '';
      const ok = await ask(
        `${a.verb[0]!.toUpperCase()}${a.verb.slice(1)}${how} the ${count(matched)} jobs (${a.states}) with ${describe(selector)}? ` +
          `Jobs that match from now on are included; this cannot be undone.`,
        `${a.verb[0]!.toUpperCase()}${a.verb.slice(1)} ${count(matched)} jobs`,
      );
      if (ok) setProgress(await walk(false, { phase: 'applying', matched, applied: 0 }));
    } catch (err) {
      setProgress((p) => ({
        ...(p ?? { matched: 0, applied: 0 }),
        phase: 'stopped',
        error: (err as Error).message,
      }));
    }
  };

  const busy = progress?.phase === 'counting' || progress?.phase === 'applying';
  return (
    <section>
      <h1>Act on many jobs</h1>
      {dialog}
      <form
        // keyed by the URL: its fields show what the URL says, and what is typed survives a refresh
        key={params.toString()}
        class="controls"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget as HTMLFormElement);
          const value = (k: string) => String(form.get(k) ?? '').trim();
          setProgress(null);
          setParams({
            topic: value('topic'),
            bizKey: value('bizKey'),
            tag: value('tag'),
            state: value('state'),
            dueFrom: toEpoch(value('dueFrom')),
            dueTo: toEpoch(value('dueTo')),
            action: value('action'),
          });
        }}
      >
        <input name="topic" placeholder="topic" defaultValue={selector['topic']} />
        <input name="bizKey" placeholder="bizKey" defaultValue={selector['bizKey']} />
        <input name="tag" placeholder="tag" defaultValue={selector['tag']} />
        <select name="state" value={selector['state']}>
          <option value="">any state</option>
          {STATES.map((s) => (
            <option value={s}>{s}</option>
          ))}
        </select>
        <label>
          due from <input type="datetime-local" name="dueFrom" defaultValue={toLocal(params.get('dueFrom'))} />
        </label>
        <label>
          to <input type="datetime-local" name="dueTo" defaultValue={toLocal(params.get('dueTo'))} />
        </label>
        <span class="muted">({shownZone()})</span>
        <select name="action" value={action}>
          {Object.keys(ACTIONS).map((a) => (
            <option value={a}>{a}</option>
          ))}
        </select>
        <button type="submit">Select</button>
      </form>
      {!(selector['topic'] || selector['bizKey'] || selector['tag']) ? (
        <p class="muted">Name a topic, a bizKey or a tag (and, if you like, a state and a due range), then Select.</p>
      ) : (
        <div id="bulk">
          <p>
            <strong>{action}</strong> the jobs ({ACTIONS[action].states}) with{' '}
            <span id="bulk-selector">{describe(selector)}</span>{' '}
            <a
              href={href('/jobs', {
                topic: selector['topic'],
                bizKey: selector['bizKey'],
                tag: selector['tag'],
                state: selector['state'],
              })}
            >
              (see them)
            </a>
          </p>
          <div class="controls">
            {action === 'reschedule' && (
              <label>
                move each by{' '}
                <input
                  name="shiftMs"
                  value={shift}
                  size={6}
                  onInput={(e) => setShift((e.target as HTMLInputElement).value)}
                />
              </label>
            )}
            {action === 'cancel' && (
              <input
                name="reason"
                placeholder="reason (kept in history)"
                value={reason}
                onInput={(e) => setReason((e.target as HTMLInputElement).value)}
              />
            )}
            <button disabled={busy} onClick={() => run(true)}>
              Count (dry run)
            </button>
            {progress?.phase === 'counted' && progress.matched > 0 && (
              <button class="danger" onClick={() => run(false)}>
                {ACTIONS[action].verb} {count(progress.matched)} jobs…
              </button>
            )}
            {busy && (
              <button onClick={() => (stop.current = true)} id="bulk-stop">
                Stop
              </button>
            )}
          </div>
          {progress && (
            <div
              id="bulk-progress"
              data-phase={progress.phase}
              data-matched={progress.matched}
              data-applied={progress.applied}
            >
              {progress.phase === 'counting' && <p>Counting… {count(progress.matched)} so far</p>}
              {progress.phase === 'counted' && (
                <p>
                  <strong>{count(progress.matched)}</strong> jobs would be {ACTIONS[action].done}.
                </p>
              )}
              {(progress.phase === 'applying' ||
                progress.phase === 'done' ||
                (progress.phase === 'stopped' && progress.applied > 0)) && (
                <>
                  <progress max={Math.max(progress.matched, progress.applied, 1)} value={progress.applied} />
                  <p>
                    {count(progress.applied)} of {count(progress.matched)} {ACTIONS[action].done}
                    {progress.phase === 'done' ? ': done.' : progress.phase === 'stopped' ? ': stopped.' : '…'}
                  </p>
                </>
              )}
              {progress.error && <p class="error">{progress.error}</p>}
            </div>
          )}
        </div>
      )}
    </section>
  );
}
