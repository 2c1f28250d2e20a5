// Redis Cluster (3 masters, 1 replica each) under the chaos load, with delayq groups side by side: no journal
// and a journal on the suite's own PostgreSQL and MariaDB. Faults: kill -9 a master, CLUSTER FAILOVER while
// writing, SIGSTOP a master past the node timeout then SIGCONT (a stale master), restart a replica empty,
// kill -9 of each journal database. Short form: one round without the replica restart, no journal +
// PostgreSQL; long form (CHAOS_LONG=1): every group and fault, FAILOVER_ROUNDS rounds (default 3).
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ReplicatedCluster } from '../helpers/redis-topologies.js';
import { OwnMariadb, OwnPostgres, type OwnDatabase } from './chaos-databases.js';
import { recordFigure } from './chaos-figures.js';
import { LONG } from './chaos-processes.js';
import { clusterFaults, journalFault } from './failover-faults.js';
import { expectFailoverGoals, failoverLoad, groupSize, ROUNDS } from './failover-goals.js';
import { runFailover, summarizeGroup, type Fault } from './failover-run.js';

describe('Redis Cluster with replicas: failover under load', () => {
  const cluster = new ReplicatedCluster([7600, 7601, 7602, 7603, 7604, 7605]);
  const postgres = new OwnPostgres(7620);
  const mariadb = LONG ? new OwnMariadb(7621) : null;
  const databases: OwnDatabase[] = [postgres, ...(mariadb ? [mariadb] : [])];
  beforeAll(async () => {
    await Promise.all([cluster.start(), ...databases.map((db) => db.start())]);
  }, 180_000);
  afterAll(async () => {
    await cluster.stop();
    await Promise.all(databases.map((db) => db.stop()));
  });

  it(
    'with the journal: nothing acknowledged is lost, finished or cancelled jobs stay so; without: the loss is measured',
    async () => {
      const kinds = clusterFaults(cluster);
      const faults: Fault[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        faults.push(
          kinds['killMaster']!(round),
          kinds['manualFailover']!(round + 1),
          kinds['pauseMaster']!(round + 2),
          ...(LONG ? [kinds['restartReplicaEmpty']!(round)] : []),
          ...databases.map(journalFault),
        );
      }
      const { reports, faults: windows } = await runFailover({
        topology: 'cluster',
        redisUrl: cluster.url,
        groups: [null, ...databases].map((journal, i) => ({
          journal,
          servers: groupSize(journal),
          port: 7630 + 3 * i,
        })),
        faults,
        load: failoverLoad,
      });
      for (const r of reports) {
        recordFigure(`failover-${r.name}`, { summary: summarizeGroup(r), faults: windows });
      }
      expectFailoverGoals(reports);
    },
    LONG ? 3_600_000 : 420_000,
  );
});
