import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTarget, type Target } from './targets.js';

const run = promisify(execFile);
const clients = {
  pheanstalk: ['php', new URL('./clients/pheanstalk-round-trip.php', import.meta.url).pathname],
  beaneater: ['ruby', new URL('./clients/beaneater-round-trip.rb', import.meta.url).pathname],
} as const;

/** Runs one client's script against a server; its transcript holds no server-specific ids. */
async function transcript(client: keyof typeof clients, port: number): Promise<Record<string, unknown>> {
  const [command, script] = clients[client];
  const tube = `tp-${client}-${Math.random().toString(36).slice(2, 8)}`;
  const { stdout } = await run(command, [script, String(port), tube], { timeout: 30_000 });
  const out = JSON.parse(stdout) as Record<string, unknown>;
  // The tube name is random per run: compare its place, not its text.
  return JSON.parse(JSON.stringify(out).replaceAll(tube, '<tube>')) as Record<string, unknown>;
}

// PHP's pheanstalk and Ruby's beaneater, as Debian installs them (.ci/services.sh), drive the same round
// trip against beanstalkd itself and against delayq on each store (Redis + PostgreSQL journal included): the
// transcripts must be equal.
describe.each(['pheanstalk', 'beaneater'] as const)('%s against delayq and beanstalkd', (client) => {
  const targets: Partial<Record<Target['name'], Target>> = {};
  let reference: Record<string, unknown>;

  beforeAll(async () => {
    for (const name of ['beanstalkd', 'sqlite', 'redis', 'journal'] as const) targets[name] = await startTarget(name);
    reference = await transcript(client, targets.beanstalkd!.port);
  }, 60_000);
  afterAll(async () => {
    for (const target of Object.values(targets)) await target.close();
  });

  it('the script is right: beanstalkd itself passes every step', () => {
    expect(reference).toMatchObject({
      'reserved same job': true,
      'reserved after delay': true,
      'after kick': 'ready',
      'reserve while paused': 'timed out',
      'reserved after pause': true,
    });
  });

  it.each(['sqlite', 'redis', 'journal'] as const)(
    'delayq on %s answers as beanstalkd does',
    async (name) => {
      expect(await transcript(client, targets[name]!.port)).toEqual(reference);
    },
    60_000,
  );
});
