import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const markdown = [
  ...['README.md', 'RELIABILITY.md', 'BENCHMARKS.md'],
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
].filter((f) => existsSync(join(root, f)));

/** GitHub's heading anchors: lower case, punctuation dropped (but `-` and `_`), spaces to `-`. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[`*]/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

const anchorsOf = (file: string): Set<string> =>
  new Set([...readFileSync(file, 'utf8').matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slug(m[1]!)));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every relative link of the documentation points to a file that exists (and to a heading of it, with an anchor). */
describe('documentation links', () => {
  it('no relative link in README, RELIABILITY, BENCHMARKS or docs/ is broken', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of markdown) {
      const text = readFileSync(join(root, file), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue; // http:, https:, mailto:
        checked++;
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const resolved = path === '' ? join(root, file) : join(root, dirname(file), path);
        if (!existsSync(resolved)) broken.push(`${file}: ${target} (no such file)`);
        else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor))
          broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    expect(checked).toBeGreaterThan(10);
    expect(broken).toEqual([]);
  });

  it('every docs/*.md that the source code names exists', () => {
    const missing: string[] = [];
    for (const file of sourceFiles(join(root, 'src'))) {
      for (const [name] of readFileSync(file, 'utf8').matchAll(/docs\/[\w-]+\.md/g)) {
        if (!existsSync(join(root, name))) missing.push(`${relative(root, file)}: ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
