// What a run was made on, recorded in its results file so a report rendered later names the run's machine
// and versions, not the renderer's.
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { PYTHON } from './subjects/python-push.js';

export interface MachineInfo {
  cpu: string;
  cores: number;
  ramGiB: number;
  node: string;
  /** Package and server versions, by name. */
  versions: Record<string, string>;
  /** `git rev-parse --short HEAD`, with "+ uncommitted changes" when the tree was dirty. */
  commit: string;
}

function sh(cmd: string): string | undefined {
  try {
    return execSync(cmd, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

function packageVersion(path: string): string {
  try {
    return (JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'not installed';
  }
}

export function describeMachine(): MachineInfo {
  const dirty = sh('git status --porcelain --untracked-files=no');
  const head = sh('git rev-parse --short HEAD') ?? 'unknown';
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    ramGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    versions: {
      delayq: packageVersion('../package.json'),
      BullMQ: packageVersion('../node_modules/bullmq/package.json'),
      ioredis: packageVersion('../node_modules/ioredis/package.json'),
      jackd: packageVersion('../node_modules/jackd/package.json'),
      undici: packageVersion('../node_modules/undici/package.json'),
      Redis: sh('redis-server --version')?.match(/v=(\S+)/)?.[1] ?? 'unknown',
      beanstalkd: sh('beanstalkd -v')?.replace(/^beanstalkd\s*/, '') ?? 'unknown',
      PostgreSQL: sh('psql -V')?.match(/(\d+(\.\d+)*)/)?.[1] ?? 'unknown',
      MariaDB: sh('mariadb --version')?.match(/(\d+\.\d+\.\d+)-MariaDB/)?.[1] ?? 'unknown',
      Python: sh(`${PYTHON} --version`)?.replace(/^Python\s*/, '') ?? 'unknown',
    },
    commit: dirty ? `${head} + uncommitted changes` : head,
  };
}
