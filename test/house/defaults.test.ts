import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DelayqClient } from '../../src/client/client.js';
import { configOptions, DEFAULT_SERVER_URL, DEFAULTS, SINK_DEFAULTS } from '../../src/config.js';
import { DEFAULT_DUE_TIMER_OPTIONS } from '../../src/timer/due-timer.js';
import { DEFAULT_SCHEDULE_RUNNER_OPTIONS } from '../../src/schedules/schedule-runner.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'dist' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every numeric default of the config schema (and the sink defaults), by option name: `horizonMs` → 3600000. */
function numericDefaults(): Map<string, number[]> {
  const byName = new Map<string, number[]>();
  const add = (name: string, value: unknown) => {
    if (typeof value !== 'number' || value === 0) return;
    byName.set(name, [...(byName.get(name) ?? []), value]);
  };
  for (const leaf of configOptions()) {
    let value: unknown = DEFAULTS;
    for (const key of leaf.path) value = (value as Record<string, unknown>)[key];
    add(leaf.path[leaf.path.length - 1]!, value);
  }
  for (const [name, value] of Object.entries(SINK_DEFAULTS)) add(name, value);
  return byName;
}

/** Parameters that share a config option's name but are another option (a close's grace is not schedules.graceMs). */
const SAME_NAME_OTHER_OPTION = new Set([
  `${join('src', 'server', 'app.ts')}: graceMs = 2000`,
  `${join('src', 'grpc', 'grpc-server.ts')}: graceMs = 2000`,
]);

/** `commandTimeoutMs` as written, and `DEFAULT_COMMAND_TIMEOUT_MS` (a constant named after the option) → `commandTimeoutMs`. */
function optionName(identifier: string): string {
  if (!/^[A-Z0-9_]+$/.test(identifier)) return identifier;
  return identifier
    .replace(/^DEFAULT_/, '')
    .toLowerCase()
    .replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Where `text` writes an option's name next to that option's default value: `name:line: match` each. */
function restatedIn(name: string, text: string, defaults: Map<string, number[]>): string[] {
  const found: string[] = [];
  const pattern = /\b([A-Za-z_][A-Za-z0-9_]*)\s*(?:\?\?|:|=|\|\|)\s*(\d[\d_]*)(?![\d_.])/g;
  for (const match of text.matchAll(pattern)) {
    if (SAME_NAME_OTHER_OPTION.has(`${name}: ${match[0]}`)) continue;
    const values = defaults.get(optionName(match[1]!));
    if (values?.includes(Number(match[2]!.replace(/_/g, '')))) {
      const line = text.slice(0, match.index).split('\n').length;
      found.push(`${name}:${line}: ${match[0]}`);
    }
  }
  return found;
}

/**
 * One home per fact: a default lives in src/config.ts only. A module that writes an option's name next to
 * that option's default value (`horizonMs ?? 3_600_000`, `batchSize: 1000`, `refreshIntervalMs = 2000`)
 * restates it, and the two drift apart the day one changes.
 */
describe('defaults live in src/config.ts only', () => {
  it('no module outside config.ts restates a config default beside its option name', () => {
    const defaults = numericDefaults();
    const restated: string[] = [];
    for (const file of sourceFiles(join(root, 'src'))) {
      const name = relative(root, file);
      if (name === join('src', 'config.ts')) continue;
      restated.push(...restatedIn(name, readFileSync(file, 'utf8'), defaults));
    }
    expect(restated).toEqual([]);
  });

  it('catches a restated default as a fallback, a property, a parameter default and a named constant', () => {
    const defaults = numericDefaults();
    const sample = [
      'const tuning = { commandTimeoutMs: this.options.commandTimeoutMs ?? 2000 };',
      'createRedisClient(connection, { commandTimeoutMs: 2000, connectTimeoutMs: 2_000 });',
      'function load(horizonMs = 3_600_000) {}',
      'const DEFAULT_HORIZON_MS = 3600000;',
      'const other = { horizonMs: 5000, connectTimeoutMs: config.redis.connectTimeoutMs };',
    ].join('\n');
    expect(restatedIn('sample.ts', sample, defaults)).toEqual([
      'sample.ts:1: commandTimeoutMs ?? 2000',
      'sample.ts:2: commandTimeoutMs: 2000',
      'sample.ts:2: connectTimeoutMs: 2_000',
      'sample.ts:3: horizonMs = 3_600_000',
      'sample.ts:4: DEFAULT_HORIZON_MS = 3600000',
    ]);
  });

  it('the modules that take the same options read them from DEFAULTS', () => {
    expect(DEFAULT_DUE_TIMER_OPTIONS).toEqual(DEFAULTS.scheduler);
    expect(DEFAULT_SCHEDULE_RUNNER_OPTIONS).toEqual(DEFAULTS.schedules);
  });

  it("the SDK's default server (written out so the SDK loads no config schema) is config's default listener", async () => {
    const client = new DelayqClient();
    try {
      expect(client.url).toBe(DEFAULT_SERVER_URL);
    } finally {
      await client.close();
    }
  });
});
