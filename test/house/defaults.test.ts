import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DelayqClient } from '../../src/client/client.js';
import { configOptions, DEFAULT_SERVER_URL, DEFAULTS, SINK_DEFAULTS } from '../../src/config.js';
import { DEFAULT_SCHEDULER_OPTIONS } from '../../src/scheduler/scheduler.js';
import { DEFAULT_SCHEDULE_RUNNER_OPTIONS } from '../../src/schedule/schedule-runner.js';

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
      // redis-model's area (issue 18's other half): RedisStore's commandTimeoutMs fallback is theirs to fix.
      if (name.startsWith(join('src', 'store', 'redis'))) continue;
      const text = readFileSync(file, 'utf8');
      const pattern = /\b([A-Za-z]+)\s*(?:\?\?|:|=|\|\|)\s*(\d[\d_]*)(?![\d_.])/g;
      for (const match of text.matchAll(pattern)) {
        if (SAME_NAME_OTHER_OPTION.has(`${name}: ${match[0]}`)) continue;
        const values = defaults.get(match[1]!);
        if (values?.includes(Number(match[2]!.replace(/_/g, '')))) {
          const line = text.slice(0, match.index).split('\n').length;
          restated.push(`${name}:${line}: ${match[0]}`);
        }
      }
    }
    expect(restated).toEqual([]);
  });

  it('the modules that take the same options read them from DEFAULTS', () => {
    expect(DEFAULT_SCHEDULER_OPTIONS).toEqual(DEFAULTS.scheduler);
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
