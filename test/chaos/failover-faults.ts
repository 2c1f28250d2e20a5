/**
 * The faults of the failover suite. Each returns once the topology is whole again, so the next fault
 * starts from a master with an in-sync replica: the load keeps running through the fault and the repair.
 */
import type { ReplicatedCluster, SentinelTopology } from '../helpers/redis-topologies.js';
import type { OwnDatabase } from './chaos-databases.js';
import type { Fault } from './failover-run.js';

/** Cluster faults; the k-th fault of a kind takes the k-th master, so every shard fails over in turn. */
export function clusterFaults(cluster: ReplicatedCluster): Record<string, (k: number) => Fault> {
  const masterAt = (k: number) => {
    const masters = cluster.masters().sort((a, b) => a.port - b.port);
    return masters[k % masters.length]!;
  };
  return {
    killMaster: (k) => ({
      name: 'kill -9 a master',
      run: async () => {
        const master = masterAt(k);
        const replica = cluster.replicaOf(master);
        await master.kill9();
        await cluster.waitPromoted(replica);
        await master.start(); // keeps nodes.conf: rejoins as the new master's replica, with no data
        await cluster.waitHealthy();
      },
    }),
    manualFailover: (k) => ({
      name: 'CLUSTER FAILOVER',
      run: async () => {
        const replica = cluster.replicaOf(masterAt(k));
        replica.cli('cluster', 'failover');
        await cluster.waitPromoted(replica);
        await cluster.waitHealthy();
      },
    }),
    pauseMaster: (k) => ({
      name: 'SIGSTOP a master past the node timeout, then SIGCONT',
      run: async () => {
        const master = masterAt(k);
        const replica = cluster.replicaOf(master);
        master.pause();
        try {
          await cluster.waitPromoted(replica);
        } finally {
          master.resume(); // a stale master: it learns of the failover from the bus and turns replica
        }
        await cluster.waitHealthy();
      },
    }),
    restartReplicaEmpty: (k) => ({
      name: 'restart a replica empty',
      run: async () => {
        const replicas = cluster.replicas().sort((a, b) => a.port - b.port);
        const replica = replicas[k % replicas.length]!;
        await replica.kill9();
        await replica.start();
        await cluster.waitHealthy();
      },
    }),
  };
}

export function sentinelFaults(set: SentinelTopology): Record<string, (k: number) => Fault> {
  const replicaOf = (port: number) => ({ extra: ['--replicaof', '127.0.0.1', String(port)] });
  return {
    killMaster: () => ({
      name: 'kill -9 the master',
      run: async () => {
        const [master, replica] = [set.master(), set.replica()];
        await master.kill9();
        await set.waitMaster(replica.port);
        await master.start(replicaOf(replica.port));
        await set.waitHealthy();
      },
    }),
    manualFailover: () => ({
      name: 'SENTINEL FAILOVER',
      run: async () => {
        const replica = set.replica();
        const answer = set.sentinels[0]!.cli('sentinel', 'failover', set.masterName);
        if (!answer.includes('OK')) throw new Error(`SENTINEL FAILOVER refused: ${answer}`);
        await set.waitMaster(replica.port);
        await set.waitHealthy();
      },
    }),
    pauseMaster: () => ({
      name: 'SIGSTOP the master past down-after, then SIGCONT',
      run: async () => {
        const [master, replica] = [set.master(), set.replica()];
        master.pause();
        try {
          await set.waitMaster(replica.port);
        } finally {
          master.resume(); // a stale master until the sentinels turn it into a replica
        }
        await set.waitHealthy();
      },
    }),
    restartReplicaEmpty: () => ({
      name: 'restart the replica empty',
      run: async () => {
        const [master, replica] = [set.master(), set.replica()];
        await replica.kill9();
        await replica.start(replicaOf(master.port));
        await set.waitHealthy();
      },
    }),
  };
}

/** kill -9 of the journal's database and its restart (crash recovery on its own data). */
export function journalFault(db: OwnDatabase): Fault {
  return {
    name: `kill -9 the ${db.dialect} journal`,
    run: async () => {
      await db.kill9();
      await db.start();
    },
  };
}
