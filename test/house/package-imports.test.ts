/**
 * What the README and docs/ tell users to import exists in the package: each `from 'delayq…'` names an
 * entry of package.json's exports, built from a source file that exports every name imported. Nothing
 * may tell users to import from `src/…`, which the package does not ship.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, { default: string }>;
};
const docs = ['README.md', ...readdirSync(join(root, 'docs')).map((f) => `docs/${f}`)].filter((f) => f.endsWith('.md'));
const text = (file: string): string => readFileSync(join(root, file), 'utf8');

/** The source a package entry is built from: ./dist/x/y.js ← src/x/y.ts. */
const sourceOf = (entry: string): string =>
  join(root, pkg.exports[entry]!.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));

describe('imports the documentation shows', () => {
  const imports = docs.flatMap((file) =>
    [...text(file).matchAll(/import \{([^}]+)\} from '(delayq(?:\/[\w-]+)?)'/g)].map((m) => ({
      file,
      names: m[1]!.split(',').map((n) => n.trim().replace(/^type\s+/, '')),
      entry: m[2]!.replace(/^delayq/, '.'),
    })),
  );

  it('name package entries whose sources export those names', async () => {
    expect(imports.length).toBeGreaterThan(1);
    for (const { file, names, entry } of imports) {
      expect(pkg.exports[entry], `${file}: ${entry}`).toBeDefined();
      expect(existsSync(sourceOf(entry)), `${file}: ${entry}`).toBe(true);
      const exported = readFileSync(sourceOf(entry), 'utf8');
      for (const name of names) expect(exported, `${file}: ${name} from ${entry}`).toMatch(new RegExp(`\\b${name}\\b`));
    }
  });

  it('a webhook receiver imports verifyWebhookSignature from the package, never from src/', async () => {
    const sinks = text('docs/sinks.md');
    expect(sinks).toContain("import { verifyWebhookSignature } from 'delayq/webhook';");
    expect(sinks).not.toMatch(/src\/[\w/-]*webhook-signature/);
    const { verifyWebhookSignature, signWebhook } = (await import(
      sourceOf('./webhook')
    )) as typeof import('../../src/core/webhook-signature.js');
    const now = Date.now();
    expect(verifyWebhookSignature('a-long-enough-secret', signWebhook('a-long-enough-secret', now, '{}'), '{}')).toBe(
      true,
    );
  });
});
