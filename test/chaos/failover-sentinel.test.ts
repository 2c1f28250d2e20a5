// Sentinel (master, replica, 3 sentinels) under the chaos load, with delayq groups side by side: no journal and
// a journal on the suite's own MariaDB and PostgreSQL. Faults: SENTINEL FAILOVER while writing, kill -9 the
// master, SIGSTOP the master past down-after then SIGCONT (a stale master), restart the replica empty, kill -9
// of each journal database. Short form: one round without the replica restart, no journal + MariaDB; long form
// (CHAOS_LONG=1): every group and fault, FAILOVER_ROUNDS rounds (default 3).
import { afterAll, beforeAll, describe, it } from 'vitest';
import { SentinelTopology } from '../helpers/redis-topologies.js';
import { OwnMariadb, OwnPostgres, type OwnDatabase } from './chaos-databases.js';
import { recordFigure } from './chaos-figures.js';
import { LONG } from './chaos-processes.js';
import { journalFault, sentinelFaults } from './failover-faults.js';
import { expectFailoverGoals, failoverLoad, groupSize, ROUNDS } from './failover-goals.js';
import { runFailover, summarizeGroup, type Fault } from './failover-run.js';

describe('Sentinel: failover under load', () => {
  const sentinel = new SentinelTopology([7610, 7611, 7612, 7613, 7614]);
  const mariadb = new OwnMariadb(7623);
  const postgres = LONG ? new OwnPostgres(7622) : null;
  const databases: OwnDatabase[] = [mariadb, ...(postgres ? [postgres] : [])];
  beforeAll(async () => {
    await Promise.all([sentinel.start(), ...databases.map((db) => db.start())]);
  }, 180_000);
  afterAll(async () => {
    await sentinel.stop();
    await Promise.all(databases.map((db) => db.stop()));
  });

  it(
    'with the journal: nothing acknowledged is lost, finished or cancelled jobs stay so; without: the loss is measured',
    async () => {
      const kinds = sentinelFaults(sentinel);
      const faults: Fault[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        // SENTINEL FAILOVER first: the sentinels refuse a second failover of one master within 2 × failover-timeout
        faults.push(
          kinds['manualFailover']!(round),
          kinds['killMaster']!(round),
          kinds['pauseMaster']!(round),
          ...(LONG ? [kinds['restartReplicaEmpty']!(round)] : []),
          ...databases.map(journalFault),
        );
      }
      const { reports, faults: windows } = await runFailover({
        topology: 'sentinel',
        redisUrl: sentinel.url,
        groups: [null, ...databases].map((journal, i) => ({
          journal,
          servers: groupSize(journal),
          port: 7640 + 3 * i,
        })),
        faults,
        load: failoverLoad,
      });
      for (const r of reports) recordFigure(`failover-${r.name}`, { summary: summarizeGroup(r), faults: windows });
      expectFailoverGoals(reports);
    },
    LONG ? 3_600_000 : 420_000,
  );
});
