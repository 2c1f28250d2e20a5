import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const read = (file: string) => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));

/** package.json's engines field is a promise: every package the lock installs must run on that Node. */
describe('engines', () => {
  it('every package in the lock accepts the oldest Node that package.json claims', () => {
    const range: string = read('package.json').engines.node;
    const oldest = semver.minVersion(range)!.version;
    expect(oldest).toBe('20.19.0');
    const lock = read('package-lock.json') as {
      packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
    };
    const refusing = Object.entries(lock.packages)
      .filter(([path, pkg]) => path !== '' && pkg.engines && !Array.isArray(pkg.engines) && pkg.engines.node)
      .filter(
        ([, pkg]) => !semver.satisfies(oldest, (pkg.engines as { node: string }).node, { includePrerelease: true }),
      )
      .map(
        ([path, pkg]) =>
          `${path.replace(/^.*node_modules\//, '')}@${pkg.version} wants node ${(pkg.engines as { node: string }).node}`,
      );
    expect(refusing).toEqual([]);
  });
});
