// A stale master: a replica was promoted, and the old master, still on its old replication history, acknowledges
// more writes (a master paused past the failover that comes back, or one a partition kept from the news). The
// failover watch must report those writes as lost whether it sees the promotion before or after the stale
// writes. Real redis-server processes: the promotion is REPLICAOF NO ONE on the replica, what a failover does.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FailoverWatch } from '../../src/store/redis/failover-watch.js';
import type { StoreWriteLoss } from '../../src/store/store-notices.js';
import { RedisNode } from '../helpers/redis-topologies.js';
import { waitFor } from '../helpers/redis-servers.js';

const argv = (port: number, dir: string) => (extra: string[]) => [
  ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
  ...extra,
];

describe('the failover watch and a stale master', () => {
  const master: RedisNode = new RedisNode(7690, (extra) => argv(7690, master.dir)(extra));
  const replica: RedisNode = new RedisNode(7691, (extra) => argv(7691, replica.dir)(extra));
  const clients: Redis[] = [];
  const connect = (port: number): Redis => {
    const client = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    await master.start({ wipe: true });
    await replica.start({ wipe: true, extra: ['--replicaof', '127.0.0.1', '7690'] });
    await waitFor('the replica in sync', async () => replica.replication()['master_link_status'] === 'up');
  }, 30_000);
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await Promise.all([master.kill9(), replica.kill9()]);
  });

  it('reports what the old master acknowledged after the promotion, once, and nothing before it', async () => {
    const [old, promoted] = [connect(7690), connect(7691)];
    const losses: StoreWriteLoss[] = [];
    let current: Redis = old;
    const watch = new FailoverWatch(
      () => current,
      () => Date.now(),
      { onReset: () => undefined, onWarning: () => undefined, onWriteLoss: (loss) => losses.push(loss) },
    );
    for (let i = 0; i < 50; i++) await old.set(`before:${i}`, 'x'.repeat(100));
    await watch.check();
    const masterOffset = Number(master.replication()['master_repl_offset']);
    await waitFor(
      'the replica caught up',
      async () => Number(replica.replication()['master_repl_offset']) >= masterOffset,
    );

    // the failover: the replica promoted with everything, the old master not told
    expect(replica.cli('replicaof', 'no', 'one')).toContain('OK');
    current = promoted;
    await watch.check();
    expect(losses, 'a promotion that kept every write is no loss').toEqual([]);

    // the stale master acknowledges writes its promoted replica will never have
    for (let i = 0; i < 20; i++) expect(await old.set(`stale:${i}`, 'y'.repeat(100))).toBe('OK');
    current = old;
    await watch.check();
    expect(losses).toHaveLength(1);
    expect(losses[0]!.lostBytes).toBeGreaterThan(20 * 100);
    expect(losses[0]!.shard).toContain('7691');

    // sampled again with nothing new: not reported twice
    await watch.check();
    expect(losses).toHaveLength(1);
    watch.close();
  });
});
