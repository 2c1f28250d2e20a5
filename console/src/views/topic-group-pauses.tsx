import { useState } from 'preact/hooks';
import { ApiError, get, post } from '../api.js';
import { time } from '../format.js';
import { useLoad } from './use-load.js';

interface PausedGroup {
  group: string;
  pausedUntil: number | null;
}

/**
 * A topic's paused groups (docs/flow-control.md "Pausing one group"): each with when its pause ends and a button
 * to resume it, and a form to pause a group, for a while or until resumed, confirmed first. The API's refusal is
 * shown naming its field (a store without groups refuses the pause).
 */
export function TopicGroupPauses({
  topic,
  ask,
}: {
  topic: string;
  ask: (text: string, action: string) => Promise<boolean>;
}) {
  const path = `/v1/topics/${encodeURIComponent(topic)}/groups`;
  const { data, reload } = useLoad(
    () => get<{ groups: PausedGroup[] }>(`${path}/paused`).then((r) => r.groups),
    [topic],
    5000,
  );
  const [group, setGroup] = useState('');
  const [delay, setDelay] = useState('');
  const [error, setError] = useState<{ message: string; field: string } | null>(null);
  const [saved, setSaved] = useState('');

  const act = async (url: string, body: unknown, done: string) => {
    setError(null);
    setSaved('');
    try {
      await post(url, body);
      setSaved(done);
      reload();
    } catch (err) {
      setError({ message: (err as Error).message, field: err instanceof ApiError ? (err.field ?? '') : '' });
    }
  };
  const pause = async (e: Event) => {
    e.preventDefault();
    const name = group.trim();
    const text =
      `Pause the group ${name || '(none given)'} of ${topic}${delay ? ` for ${delay}` : ' until it is resumed'}? ` +
      "Its jobs stay ready; consumers and sinks get the topic's other jobs meanwhile.";
    if (!(await ask(text, 'Pause group'))) return;
    const delayMs = delay === '' ? undefined : /^\d+$/.test(delay) ? Number(delay) : delay;
    await act(`${path}/${encodeURIComponent(name)}/pause`, delayMs === undefined ? {} : { delayMs }, `${name} paused`);
  };
  const resume = (name: string) => act(`${path}/${encodeURIComponent(name)}/resume`, {}, `${name} resumed`);

  return (
    <>
      <h2>Paused groups</h2>
      {!data || data.length === 0 ? (
        <p class="muted" id="paused-groups-none">
          No group of this topic is paused.
        </p>
      ) : (
        <ul id="paused-groups">
          {data.map((g) => (
            <li data-group={g.group}>
              <code>{g.group}</code> {g.pausedUntil === null ? 'until resumed' : `until ${time(g.pausedUntil)}`}{' '}
              <button type="button" onClick={() => resume(g.group)}>
                Resume
              </button>
            </li>
          ))}
        </ul>
      )}
      <form class="controls" id="group-pause-form" onSubmit={pause}>
        <label>
          group{' '}
          <input
            name="group"
            size={16}
            class={error?.field === 'group' ? 'invalid' : ''}
            placeholder="e.g. merchant-42"
            value={group}
            onInput={(e) => setGroup((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          for{' '}
          <input
            name="delayMs"
            size={6}
            class={error?.field === 'delayMs' ? 'invalid' : ''}
            placeholder="until resumed"
            value={delay}
            onInput={(e) => setDelay((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit">Pause group</button>
        {saved && <span id="group-pause-saved">{saved}</span>}
      </form>
      {error && (
        <p class="error" id="group-pause-error" data-field={error.field}>
          {error.message}
        </p>
      )}
    </>
  );
}
