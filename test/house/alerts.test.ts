// The alert rules of docs/alerts.yml, checked and unit-tested by Prometheus's own promtool (Debian's
// `prometheus` package; .ci/services.sh installs it): the rules parse, and each one fires on the series of
// test/house/fixtures/alerts.promtool.yml that should page and stays quiet on those that should not.
// docs/metrics.md shows the same rules, verbatim.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const RULES = join(root, 'docs/alerts.yml');
const TESTS = join(root, 'test/house/fixtures/alerts.promtool.yml');

function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { encoding: 'utf8', timeout: 60_000 });
  if (run.error) {
    throw new Error(
      `promtool is required for the alert rule tests (Debian: apt-get install prometheus): ${run.error.message}`,
    );
  }
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

const ruleNames = (): string[] => [...readFileSync(RULES, 'utf8').matchAll(/^\s+- alert: (\w+)$/gm)].map((m) => m[1]!);

describe('docs/alerts.yml', () => {
  it('is a valid rule file', () => {
    const check = promtool('check', 'rules', RULES);
    expect(check.output).toContain(`SUCCESS: ${ruleNames().length} rules found`);
    expect(check.status).toBe(0);
  });

  it("passes promtool's unit tests: every rule fires where it should and stays quiet where it should not", () => {
    const run = promtool('test', 'rules', TESTS);
    expect(run.output, run.output).toContain('SUCCESS');
    expect(run.status).toBe(0);
  });

  it('has a firing and a quiet case for each rule', () => {
    const tests = readFileSync(TESTS, 'utf8');
    expect(ruleNames().length).toBeGreaterThanOrEqual(8);
    for (const name of ruleNames()) {
      expect(tests, `${name}: no case where it must fire`).toMatch(
        new RegExp(`alertname: ${name}\\n\\s+exp_alerts:\\n\\s+- exp_labels:`),
      );
      expect(tests, `${name}: no case where it must stay quiet`).toContain(`alertname: ${name}, exp_alerts: [] }`);
    }
  });

  it('is what docs/metrics.md shows', () => {
    const doc = readFileSync(join(root, 'docs/metrics.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Alert rules'));
    const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block).toBe(readFileSync(RULES, 'utf8'));
  });
});
