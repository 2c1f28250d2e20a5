import { useState } from 'preact/hooks';
import { ApiError, put, type TopicSettings } from '../api.js';
import { numberOrText, useFollowedField } from './settings-form.js';

/**
 * A topic's groupConcurrency (PUT /v1/topics/{topic}/settings; docs/flow-control.md "Groups"): the bound now, a
 * form to set it and a button to remove it, each change confirmed first; the API's refusal is shown naming its
 * field (a store without groups refuses it too). The topic's other settings go along unchanged.
 */
export function TopicGroupConcurrency({
  topic,
  settings,
  ask,
  changed,
}: {
  topic: string;
  settings: TopicSettings;
  ask: (text: string, action: string) => Promise<boolean>;
  changed: () => void;
}) {
  const { topic: _topic, groupConcurrency: current, ...others } = settings;
  const inForce = current === undefined ? '' : String(current);
  const [value, setValue] = useFollowedField(topic, inForce);
  const [error, setError] = useState<{ message: string; field: string } | null>(null);
  const [saved, setSaved] = useState('');

  const apply = async (groupConcurrency: number | string | undefined, done: string) => {
    setError(null);
    setSaved('');
    try {
      const body = groupConcurrency === undefined ? others : { ...others, groupConcurrency };
      await put(`/v1/topics/${encodeURIComponent(topic)}/settings`, body);
      setSaved(done);
      changed();
    } catch (err) {
      setError({ message: (err as Error).message, field: err instanceof ApiError ? (err.field ?? '') : '' });
    }
  };
  const set = async (e: Event) => {
    e.preventDefault();
    const n = numberOrText(value);
    const text =
      `Allow at most ${n ?? '(none given)'} jobs of one group of ${topic} out at once, on every instance? ` +
      'The others of that group stay ready until one ends; other groups go meanwhile.';
    if (!(await ask(text, 'Set bound'))) return;
    await apply(n ?? '', 'bound set');
  };
  const remove = async () => {
    if (!(await ask(`Remove the bound on each group of ${topic}?`, 'Remove bound'))) return;
    await apply(undefined, 'bound removed');
  };

  return (
    <>
      <h2>Group concurrency</h2>
      <p id="group-concurrency" data-value={current ?? ''}>
        {current === undefined ? (
          <span class="muted">none</span>
        ) : (
          `at most ${current} job${current === 1 ? '' : 's'} of one group at once`
        )}
      </p>
      <form class="controls" id="group-concurrency-form" onSubmit={set}>
        <label>
          jobs per group{' '}
          <input
            name="groupConcurrency"
            size={6}
            class={error?.field === 'groupConcurrency' ? 'invalid' : ''}
            placeholder="e.g. 2"
            value={value}
            onInput={(e) => setValue((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit">Set bound</button>
        {current !== undefined && (
          <button type="button" onClick={remove}>
            Remove bound
          </button>
        )}
        {saved && <span id="group-concurrency-saved">{saved}</span>}
      </form>
      {error && (
        <p class="error" id="group-concurrency-error" data-field={error.field}>
          {error.message}
        </p>
      )}
    </>
  );
}
