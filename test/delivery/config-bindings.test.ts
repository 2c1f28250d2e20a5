import { afterEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createRuntime, type DelayqRuntime } from '../../src/runtime.js';

let runtime: DelayqRuntime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

const hook = (path: string) => ({ type: 'webhook', url: `https://hooks.example/${path}` });

it('seeds delivery bindings from sinks.bindings and from its first name sinks.routes (bindings win per topic)', async () => {
  const config = loadConfig({
    env: { DELAYQ_SINKS_ROUTES: JSON.stringify({ 'old.only': hook('old'), both: hook('from-routes') }) },
    overrides: {
      sqlite: { path: ':memory:' },
      sinks: { bindings: { 'new.only': hook('new'), both: hook('from-bindings') } },
    },
  });
  runtime = createRuntime(config);
  await runtime.start();
  const seeded = await runtime.sinks.listBindings();
  expect(seeded.map((b) => [b.topic, (b.sink as { url: string }).url])).toEqual([
    ['both', 'https://hooks.example/from-bindings'],
    ['new.only', 'https://hooks.example/new'],
    ['old.only', 'https://hooks.example/old'],
  ]);
});
