import { useState } from 'preact/hooks';
import { ApiError, del, get, post, put, type Binding } from '../api.js';
import { time } from '../format.js';
import { href, setParams } from '../router.js';
import { useConfirm } from './confirm.js';
import { useLoad } from './use-load.js';

/** A starting config per sink type (docs/sinks.md); the operator edits it before saving. */
const TEMPLATES: Record<string, object> = {
  webhook: { url: 'https://example.com/hooks/delayq', timeoutMs: 10000 },
  rabbitmq: { url: 'amqp://127.0.0.1:5672', exchange: '', routingKey: '{topic}' },
  nats: { servers: ['nats://127.0.0.1:4222'], subject: '{topic}' },
  mqtt: { url: 'mqtt://127.0.0.1:1883', topic: '{topic}' },
  stomp: { host: '127.0.0.1', port: 61613, destination: '/queue/{topic}' },
  'redis-stream': { url: 'redis://127.0.0.1:6379', key: '{topic}' },
};

interface TestResult {
  jobId: string;
  ok: boolean;
  reason: string | null;
  retryable: boolean | null;
  durationMs: number;
}

/** Where a binding delivers, in one line (secrets are masked by the server). */
const target = (b: Binding): string => {
  const s = b.sink as Record<string, unknown>;
  const where =
    s['url'] ??
    (Array.isArray(s['servers']) ? (s['servers'] as string[]).join(', ') : `${String(s['host'])}:${String(s['port'])}`);
  const route = s['routingKey'] ?? s['subject'] ?? s['topic'] ?? s['destination'] ?? s['key'];
  return `${String(where)}${route ? ` → ${String(route)}` : ''}`;
};

/**
 * Delivery bindings (docs/sinks.md) where they are seen: listed (GET /v1/sinks), created or replaced
 * (PUT /v1/topics/{topic}/sink), tested with a synthetic delivery (POST …/sink/test) and deleted, confirmed.
 */
export function Sinks({ params }: { params: URLSearchParams }) {
  const { data, error, reload } = useLoad<{ bindings: Binding[] }>(() => get('/v1/sinks'), [], 5000);
  const { ask, dialog } = useConfirm();
  const [results, setResults] = useState<Record<string, TestResult | string>>({});
  const [form, setForm] = useState({
    topic: params.get('topic') ?? '',
    type: 'webhook',
    config: JSON.stringify(TEMPLATES['webhook'], null, 2),
  });
  const [formError, setFormError] = useState('');
  const [saved, setSaved] = useState('');
  const path = (topic: string) => `/v1/topics/${encodeURIComponent(topic)}/sink`;

  const test = async (topic: string) => {
    setResults((r) => ({ ...r, [topic]: 'testing…' }));
    try {
      const result = await post<TestResult>(`${path(topic)}/test`, {});
      setResults((r) => ({ ...r, [topic]: result }));
    } catch (err) {
      setResults((r) => ({ ...r, [topic]: (err as Error).message }));
    }
  };
  const remove = async (b: Binding) => {
    if (
      !(await ask(
        `Delete the ${b.sink.type} binding of ${b.topic}? Its due jobs then wait for a consumer to reserve them.`,
        `Delete binding`,
      ))
    )
      return;
    await del(path(b.topic)).catch((err: Error) => alert(err.message));
    reload();
  };
  const edit = (b: Binding) => {
    const { type, ...rest } = b.sink;
    setForm({ topic: b.topic, type, config: JSON.stringify(rest, null, 2) });
    setSaved('');
    setFormError('Secrets show masked: type them again before saving.');
  };
  const save = async (e: Event) => {
    e.preventDefault();
    setFormError('');
    setSaved('');
    let config: object;
    try {
      config = JSON.parse(form.config) as object;
    } catch {
      return setFormError('the config is not JSON');
    }
    const existing = data?.bindings.find((b) => b.topic === form.topic);
    if (
      existing &&
      !(await ask(
        `Replace the ${existing.sink.type} binding of ${form.topic}? New deliveries go to the new sink at once.`,
        'Replace binding',
      ))
    )
      return;
    try {
      await put(path(form.topic), { ...config, type: form.type });
      setSaved(`bound ${form.topic} to a ${form.type} sink`);
      setParams({ topic: form.topic });
      reload();
    } catch (err) {
      setFormError(err instanceof ApiError && err.field ? `${err.message}` : (err as Error).message);
    }
  };

  return (
    <section>
      <h1>Sinks</h1>
      {dialog}
      {error && <p class="error">{error}</p>}
      <table id="sinks">
        <thead>
          <tr>
            <th>topic</th>
            <th>type</th>
            <th>name</th>
            <th>delivers to</th>
            <th>changed</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {data?.bindings.map((b) => {
            const result = results[b.topic];
            return (
              <tr data-topic={b.topic}>
                <td>
                  <a href={href(`/topic/${b.topic}`)}>{b.topic}</a>
                </td>
                <td>{b.sink.type}</td>
                <td>{String(b.sink['name'] ?? '—')}</td>
                <td>
                  <code>{target(b)}</code>
                </td>
                <td>{time(b.updatedAt)}</td>
                <td>
                  <div class="controls">
                    <button onClick={() => test(b.topic)}>Test</button>
                    <button onClick={() => edit(b)}>Edit</button>
                    <button onClick={() => remove(b)}>Delete</button>
                  </div>
                  {result && (
                    <span class={typeof result === 'string' || !result.ok ? 'error' : 'ok'} data-field="test-result">
                      {typeof result === 'string'
                        ? result
                        : result.ok
                          ? `delivered in ${result.durationMs} ms (${result.jobId})`
                          : `failed: ${result.reason}${result.retryable ? ' (a job would be retried)' : ' (a job would go to the dead letters)'}`}
                    </span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {data && data.bindings.length === 0 && (
        <p class="muted">No topic is bound: every topic is pulled by consumers.</p>
      )}
      <h2>Bind a topic</h2>
      <form class="editor" id="sink-form" onSubmit={save}>
        <div class="form-grid">
          <label>topic</label>
          <input
            name="topic"
            value={form.topic}
            onInput={(e) => setForm({ ...form, topic: (e.target as HTMLInputElement).value })}
          />
          <label>type</label>
          <select
            name="type"
            value={form.type}
            onChange={(e) => {
              const type = (e.target as HTMLSelectElement).value;
              setForm({ ...form, type, config: JSON.stringify(TEMPLATES[type], null, 2) });
            }}
          >
            {Object.keys(TEMPLATES).map((t) => (
              <option value={t}>{t}</option>
            ))}
          </select>
          <label>config</label>
          <textarea
            name="config"
            rows={8}
            value={form.config}
            onInput={(e) => setForm({ ...form, config: (e.target as HTMLTextAreaElement).value })}
          />
        </div>
        <div class="controls">
          <button type="submit">Save binding</button>
          {saved && <span id="sink-saved">{saved}</span>}
        </div>
        {formError && (
          <p class="error" id="sink-error">
            {formError}
          </p>
        )}
      </form>
    </section>
  );
}
