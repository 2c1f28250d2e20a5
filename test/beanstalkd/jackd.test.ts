import JackdModule from 'jackd';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DelayqClient } from '../../src/client/client.js';
import { RawSession } from './raw-socket.js';
import { startTarget, type Target } from './targets.js';

// jackd is CommonJS (`module.exports = JackdClient`): the default import is the class itself.
const Jackd = JackdModule as unknown as new () => import('jackd').JackdClient;
type Client = import('jackd').JackdClient;

async function connect(port: number): Promise<Client> {
  const client = new Jackd();
  await client.connect({ host: '127.0.0.1', port });
  return client;
}

const text = (payload: unknown): string => Buffer.from(payload as Uint8Array).toString('utf8');
const yamlField = (yaml: string, field: string): string | undefined =>
  new RegExp(`^${field}: "?([^"\\n]*)"?$`, 'm').exec(yaml)?.[1];

// The same script against delayq on each store and against beanstalkd itself: the answers must match.
describe.each(['sqlite', 'redis', 'journal', 'beanstalkd'] as const)('jackd round trips against %s', (name) => {
  let target: Target;
  let client: Client;
  const tube = `jk-${Math.random().toString(36).slice(2, 8)}`;

  beforeAll(async () => {
    target = await startTarget(name);
    client = await connect(target.port);
    await client.use(tube);
    await client.watch(tube);
    await client.ignore('default');
  });
  afterAll(async () => {
    await client.quit();
    await target.close();
  });

  it('put, reserve, delete; peek of a deleted job is NOT_FOUND', async () => {
    const id = await client.put('hello beanstalk', { priority: 10, delay: 0, ttr: 30 });
    const job = await client.reserve();
    expect(job.id).toBe(id);
    expect(text(job.payload)).toBe('hello beanstalk');
    await client.delete(id);
    await expect(client.peek(id)).rejects.toThrow(/NOT_FOUND/);
  });

  it('peek-ready answers the job reserve takes next: the most urgent, not the first put', async () => {
    const lazy = await client.put('lazy', { priority: 2000, delay: 0, ttr: 30 });
    const urgent = await client.put('urgent', { priority: 10, delay: 0, ttr: 30 });
    expect((await client.peekReady()).id).toBe(urgent);
    const first = await client.reserve();
    expect(first.id).toBe(urgent);
    await client.delete(urgent);
    await client.delete(lazy);
  });

  it('release with a delay, then bury, kick, touch and stats-job', async () => {
    const id = await client.put('work', { priority: 5, ttr: 10 });
    let job = await client.reserve();
    expect(job.id).toBe(id);
    await client.release(id, { priority: 5, delay: 1 });
    expect(yamlField(await client.statsJob(id), 'state')).toBe('delayed');
    await expect(client.reserveWithTimeout(0)).rejects.toThrow(/TIMED_OUT/);
    job = await client.reserveWithTimeout(5);
    expect(job.id).toBe(id);
    await client.touch(id);
    expect(yamlField(await client.statsJob(id), 'state')).toBe('reserved');
    await client.bury(id, 5);
    expect(yamlField(await client.statsJob(id), 'state')).toBe('buried');
    expect((await client.peekBuried()).id).toBe(id);
    expect(await client.kick(10)).toBe(1);
    expect(yamlField(await client.statsJob(id), 'state')).toBe('ready');
    expect(yamlField(await client.statsJob(id), 'pri')).toBe('5');
    expect(yamlField(await client.statsJob(id), 'tube')).toBe(tube);
    expect((await client.peekReady()).id).toBe(id);
    await client.delete(id);
  });

  it('delayed jobs: peek-delayed, kick-job; stats-tube counts', async () => {
    const id = await client.put('later', { delay: 60 });
    expect((await client.peekDelayed()).id).toBe(id);
    const tubeStats = await client.statsTube(tube);
    expect(yamlField(tubeStats, 'current-jobs-delayed')).toBe('1');
    expect(yamlField(tubeStats, 'name')).toBe(tube);
    await client.kickJob(id);
    expect(yamlField(await client.statsJob(id), 'state')).toBe('ready');
    await client.delete(id);
    await expect(client.statsJob(id)).rejects.toThrow(/NOT_FOUND/);
  });

  it('pause-tube holds reserves until the pause ends', async () => {
    const id = await client.put('paused');
    // jackd 2.2.2's pauseTube never settles (it waits for a reply shape beanstalkd does not send): raw command.
    const raw = await RawSession.open(target.port);
    expect(await raw.ask(`pause-tube ${tube} 1`)).toBe('PAUSED');
    raw.close();
    const started = Date.now();
    await expect(client.reserveWithTimeout(0)).rejects.toThrow(/TIMED_OUT/);
    const job = await client.reserveWithTimeout(5);
    expect(job.id).toBe(id);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    await client.delete(id);
  });

  it('a reserved job of a client that vanishes is released at once', async () => {
    const other = await connect(target.port);
    await other.use(tube);
    const id = await other.put('orphan');
    await other.watch(tube);
    expect((await other.reserve()).id).toBe(id);
    other.socket.destroy();
    const job = await client.reserveWithTimeout(5);
    expect(job.id).toBe(id);
    await client.delete(id);
  });

  it('a job put over the protocol is finished over HTTP, and the reverse', async () => {
    if (!target.http) return expect(target.name).toBe('beanstalkd');
    const api = new DelayqClient({ url: target.http.url });
    await client.put('to http');
    const [r] = await api.reserve({ topics: [tube] });
    expect(r!.job.body).toBe('to http');
    await api.finish(r!.job.id, r!.token);

    const pushed = await api.push({ topic: tube, body: { from: 'http' } });
    const job = await client.reserve();
    expect(text(job.payload)).toBe('{"from":"http"}');
    await client.delete(job.id);
    expect((await api.get(pushed.job.id)).state).toBe('finished');
  });
});
