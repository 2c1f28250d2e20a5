import { parseSinkConfig, type WebhookSinkConfig } from '../src/sink/sink-config.js';
import { WebhookSink } from '../src/sink/webhook-sink.js';
for (const url of ['http://[::]:7629/', 'http://LOCALHOST.:7629/', 'http://0.0.0.0:7629/', 'http://[::1]:7629/']) {
  const sink = new WebhookSink(parseSinkConfig({ type: 'webhook', url, timeoutMs: 2000 }) as WebhookSinkConfig);
  console.log(url, new URL(url).hostname, await sink.deliver({ id: 'x', topic: 't', body: '1' } as any, new AbortController().signal));
  await sink.close();
}
