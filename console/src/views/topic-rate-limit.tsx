import { useState } from 'preact/hooks';
import { ApiError, put, type RateLimit, type TopicSettings } from '../api.js';
import { numberOrText, useFollowedField } from './settings-form.js';

const describe = (limit: RateLimit) =>
  `${limit.perSecond} job${limit.perSecond === 1 ? '' : 's'} a second, burst ${limit.burst}`;

/** The words and element ids of each of a topic's two rate limits: the topic's, and each group's own. */
const KINDS = {
  rateLimit: {
    heading: 'Dispatch rate limit',
    id: 'rate-limit',
    setText: (topic: string, rate: string, burst: string) =>
      `Limit ${topic} to ${rate} jobs a second, burst ${burst}, on every instance? ` +
      'Jobs beyond the rate stay ready until their turn.',
    removeText: (topic: string) =>
      `Remove the rate limit of ${topic}? Its jobs go out as fast as consumers and sinks take them.`,
  },
  groupRateLimit: {
    heading: 'Rate per group',
    id: 'group-rate-limit',
    setText: (topic: string, rate: string, burst: string) =>
      `Limit each group of ${topic} to ${rate} jobs a second, burst ${burst}, on every instance? ` +
      "A group's jobs beyond its rate stay ready until its turn; other groups go meanwhile.",
    removeText: (topic: string) => `Remove the rate limit of each group of ${topic}?`,
  },
} as const;

/**
 * A topic's dispatch rate limit, or each of its groups' own (`field`; PUT /v1/topics/{topic}/settings): the
 * limit now, a form to set it and a button to remove it, each change confirmed first; the API's refusal is shown
 * naming its field. A PUT replaces the whole settings, so the topic's other settings go along unchanged.
 */
export function TopicRateLimit({
  topic,
  settings,
  ask,
  changed,
  field = 'rateLimit',
}: {
  topic: string;
  settings: TopicSettings;
  ask: (text: string, action: string) => Promise<boolean>;
  changed: () => void;
  field?: keyof typeof KINDS;
}) {
  const kind = KINDS[field];
  const { topic: _topic, [field]: current, ...others } = settings;
  const limit: RateLimit | null = current ?? null;
  const inForce = limit ? [String(limit.perSecond), String(limit.burst)] : ['', ''];
  const [perSecond, setPerSecond] = useFollowedField(topic, inForce[0]!);
  const [burst, setBurst] = useFollowedField(topic, inForce[1]!);
  const [error, setError] = useState<{ message: string; field: string } | null>(null);
  const [saved, setSaved] = useState('');

  const apply = async (rate: Record<string, unknown> | null, done: string) => {
    setError(null);
    setSaved('');
    try {
      await put(`/v1/topics/${encodeURIComponent(topic)}/settings`, rate ? { ...others, [field]: rate } : others);
      setSaved(done);
      changed();
    } catch (err) {
      setError({ message: (err as Error).message, field: err instanceof ApiError ? (err.field ?? '') : '' });
    }
  };
  const set = async (e: Event) => {
    e.preventDefault();
    const rate = numberOrText(perSecond);
    const size = numberOrText(burst);
    const text = kind.setText(topic, String(rate ?? '(none given)'), String(size ?? 1));
    if (!(await ask(text, 'Set limit'))) return;
    await apply({ perSecond: rate, ...(size === undefined ? {} : { burst: size }) }, 'limit set');
  };
  const remove = async () => {
    if (!(await ask(kind.removeText(topic), 'Remove limit'))) return;
    await apply(null, 'limit removed');
  };
  const invalid = (name: string) => (error?.field === `${field}.${name}` ? 'invalid' : '');

  return (
    <>
      <h2>{kind.heading}</h2>
      <p id={kind.id} data-per-second={limit?.perSecond ?? ''} data-burst={limit?.burst ?? ''}>
        {limit ? describe(limit) : <span class="muted">none</span>}
      </p>
      <form class="controls" id={`${kind.id}-form`} onSubmit={set}>
        <label>
          per second{' '}
          <input
            name="perSecond"
            size={8}
            class={invalid('perSecond')}
            placeholder="e.g. 50"
            value={perSecond}
            onInput={(e) => setPerSecond((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          burst{' '}
          <input
            name="burst"
            size={6}
            class={invalid('burst')}
            placeholder="1"
            value={burst}
            onInput={(e) => setBurst((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit">Set limit</button>
        {limit && (
          <button type="button" onClick={remove}>
            Remove limit
          </button>
        )}
        {saved && <span id={`${kind.id}-saved`}>{saved}</span>}
      </form>
      {error && (
        <p class="error" id={`${kind.id}-error`} data-field={error.field}>
          {error.message}
        </p>
      )}
    </>
  );
}
