import JackdModule from 'jackd';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawSession } from './raw-socket.js';
import { startTarget, type Target } from './targets.js';

// jackd is CommonJS (`module.exports = JackdClient`): the default import is the class itself.
const Jackd = JackdModule as unknown as new () => import('jackd').JackdClient;
type Client = import('jackd').JackdClient;

const yamlField = (yaml: string, field: string): string | undefined =>
  new RegExp(`^${field}: "?([^"\\n]*)"?$`, 'm').exec(yaml)?.[1];

// reserve-job, the priority of release and bury, and peeks past a hundred jobs: the same script against
// delayq on each store and against beanstalkd itself.
describe.each(['sqlite', 'redis', 'journal', 'beanstalkd'] as const)('jackd by id against %s', (name) => {
  let target: Target;
  let client: Client;
  const tube = `jb-${Math.random().toString(36).slice(2, 8)}`;

  beforeAll(async () => {
    target = await startTarget(name);
    client = new Jackd();
    await client.connect({ host: '127.0.0.1', port: target.port });
    await client.use(tube);
    await client.watch(tube);
    await client.ignore('default');
  });
  afterAll(async () => {
    await client.quit();
    await target.close();
  });

  it('reserve-job takes a ready, a delayed and a buried job by id; a reserved one is NOT_FOUND', async () => {
    const first = await client.put('first', { priority: 1 });
    const ready = await client.put('ready', { priority: 100 });
    const delayed = await client.put('delayed', { delay: 60 });
    expect((await client.reserveJob(Number(ready))).id).toBe(ready);
    expect(yamlField(await client.statsJob(ready), 'state')).toBe('reserved');
    await expect(client.reserveJob(Number(ready))).rejects.toThrow(/NOT_FOUND/);
    expect((await client.reserveJob(Number(delayed))).id).toBe(delayed);
    expect(yamlField(await client.statsJob(delayed), 'state')).toBe('reserved');
    expect((await client.reserve()).id).toBe(first);
    await client.bury(first, 1);
    const buried = await client.reserveJob(Number(first));
    expect(Buffer.from(buried.payload).toString()).toBe('first');
    expect(yamlField(await client.statsJob(first), 'state')).toBe('reserved');
    // Another connection cannot take them: reserved.
    const raw = await RawSession.open(target.port);
    expect(await raw.ask(`reserve-job ${first}`)).toBe('NOT_FOUND');
    expect(await raw.ask('reserve-job 4000000000')).toBe('NOT_FOUND');
    expect(await raw.ask('reserve-job x')).toBe('BAD_FORMAT');
    raw.close();
    for (const id of [first, ready, delayed]) await client.delete(id);
    await expect(client.reserveJob(Number(first))).rejects.toThrow(/NOT_FOUND/);
  });

  it('release and bury give the job the priority they name', async () => {
    const a = await client.put('a', { priority: 50 });
    const b = await client.put('b', { priority: 60 });
    expect((await client.reserve()).id).toBe(a);
    await client.release(a, { priority: 70, delay: 0 });
    expect(yamlField(await client.statsJob(a), 'pri')).toBe('70');
    expect((await client.peekReady()).id).toBe(b);
    expect((await client.reserve()).id).toBe(b);
    await client.bury(b, 7);
    expect(yamlField(await client.statsJob(b), 'pri')).toBe('7');
    expect(await client.kick(1)).toBe(1);
    expect((await client.reserve()).id).toBe(b);
    await client.delete(b);
    await client.delete(a);
  });

  it('peek-ready, peek-delayed and peek-buried find the next job among hundreds', async () => {
    const lazy: string[] = [];
    for (let i = 0; i < 150; i++) lazy.push(await client.put(`lazy ${i}`, { priority: 500 }));
    const later: string[] = [];
    for (let i = 0; i < 150; i++) later.push(await client.put(`later ${i}`, { delay: 600 }));
    const urgent = await client.put('urgent', { priority: 3 });
    const soon = await client.put('soon', { delay: 300 });
    expect((await client.peekReady()).id).toBe(urgent);
    expect((await client.peekDelayed()).id).toBe(soon);
    for (const id of [...lazy.slice(0, 120), urgent]) {
      expect((await client.reserveJob(Number(id))).id).toBe(id);
      await client.bury(id, 1);
    }
    // Buried first (delayq: the earliest burial, then the oldest id).
    expect((await client.peekBuried()).id).toBe(lazy[0]);
    for (const id of [...lazy, ...later, urgent, soon]) await client.delete(id);
  });
});
