// kill -9 of a delayq server on Redis + journal under load (the kills land during finishes and pushes),
// every other kill (the first included) followed by a Redis wipe once the server is back; after the drain, N seconds for
// reconciliation, then the journal is compared with the store and Redis is wiped once more. Nothing the
// server acknowledged as finished may be delivered again, and the journal must agree with the store. The wipes
// land while consumers hold reservations and beanstalkd clients put, reserve and delete: no job may be held by
// two consumers at once, and no job number may be given twice or name another job.
// Short form: 1 kill per database (a server start takes seconds here); long form (CHAOS_LONG=1): 20.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  mysqlJournalDatabase,
  postgresJournalDatabase,
  MYSQL_URL,
  type JournalDatabase,
} from '../helpers/journal-databases.js';
import { recordFigure } from './chaos-figures.js';
import { LONG, ServerProcess, sleep, startBeanstalkdClient, waitUntil } from './chaos-processes.js';
import { checkNumbers, type NumberEvent } from './number-checker.js';
import { ChaosRedis } from './chaos-redis.js';
import { runKillLoop, summarize } from './kill-loop.js';

const kills = LONG ? 20 : 1;
/** Reconciliation settle time given to the server; the agreement check waits AGREE_AFTER_MS after the drain. */
const SETTLE_MS = 1000;
const AGREE_AFTER_MS = 5000;
const TERMINAL = new Set(['finished', 'dead', 'cancelled', 'expired']);
/** A fixed port per database below the ephemeral range (32768+), so an outgoing connection cannot hold it at a restart. */
const SERVER_PORT = { postgres: 7545, mysql: 7546 } as const;
const BEANSTALKD_PORT = { postgres: 7547, mysql: 7548 } as const;
/** TTR of the beanstalkd clients' jobs, s. */
const BEANSTALKD_TTR_SEC = 5;

/** Journal rows against what the store answers (GET prefers the inner store): terminal states must match. */
async function disagreements(db: JournalDatabase, url: string, prefix: string): Promise<string[]> {
  const rows = await db.query<{ id: string; state: string }>(
    `SELECT id, state FROM delayq_jobs WHERE id LIKE '${prefix}%'`,
  );
  const out: string[] = [];
  for (const row of rows) {
    const res = await fetch(`${url}/v1/jobs/${encodeURIComponent(row.id)}`, { signal: AbortSignal.timeout(10_000) });
    const state = res.ok ? ((await res.json()) as { job: { state: string } }).job.state : `http ${res.status}`;
    const agree = TERMINAL.has(state) || TERMINAL.has(row.state) ? state === row.state : true;
    if (!agree) out.push(`${row.id}: journal ${row.state}, store ${state}`);
  }
  return out;
}

const databases: ['postgres' | 'mysql', () => Promise<JournalDatabase>][] = [
  ['postgres', postgresJournalDatabase],
  ['mysql', mysqlJournalDatabase],
];

for (const [dialect, open] of databases) {
  describe(`kill -9 during finish and push, then a wipe, on Redis + ${dialect} journal`, () => {
    const redis = new ChaosRedis(7570 + Math.floor(Math.random() * 30)); // the suite's Redis range (7500–7599)
    let db: JournalDatabase;
    beforeAll(async () => {
      await redis.start();
      db = await open();
    });
    afterAll(async () => {
      await redis.kill();
      await db.drop();
    });

    it(
      `${kills} kills: no delivery after an acknowledged finish; the journal agrees with the store ${AGREE_AFTER_MS / 1000} s after the drain`,
      async () => {
        const prefix = `jk${Math.random().toString(36).slice(2, 7)}`;
        const server = new ServerProcess({
          port: SERVER_PORT[dialect],
          nodeId: `jk-${dialect}`,
          store: dialect === 'postgres' ? 'redis+postgres' : 'redis+mysql',
          redisUrl: redis.url,
          ...(dialect === 'postgres' ? { pgSchema: db.name } : { mysqlUri: `${MYSQL_URL}/${db.name}` }),
          loaderIntervalMs: 300,
          reconcileSettleMs: SETTLE_MS,
          beanstalkdPort: BEANSTALKD_PORT[dialect],
        });
        let wipes = 0;
        let disagreeing: string[] = [];
        const wipeAndWaitForRestore = async () => {
          // the loader notices the missing marker and restores: the server's journal status shows a newer restore
          const restoredAt = async () => {
            const res = await fetch(`${server.url}/v1/journal`, { signal: AbortSignal.timeout(10_000) });
            const status = (await res.json()) as { inner: string; lastRestore: { startedAt: number } | null };
            return status.inner === 'ok' ? (status.lastRestore?.startedAt ?? 0) : -1;
          };
          let before = -1;
          await waitUntil('the journal status', async () => (before = await restoredAt()) >= 0, 60_000, 200);
          await redis.command('FLUSHALL');
          wipes++;
          await waitUntil('the restore after a wipe', async () => (await restoredAt()) > before, 60_000, 200);
        };
        const report = await runKillLoop(server, {
          kills,
          intervalMs: LONG ? [1500, 3000] : [800, 1200],
          ratePerSec: LONG ? 200 : 120,
          delayMaxMs: 1500,
          ttrMs: 2000,
          failEvery: 25,
          prefix,
          startTimeoutMs: 90_000,
          companion: () =>
            startBeanstalkdClient({
              port: BEANSTALKD_PORT[dialect],
              tube: `bk.${prefix}`,
              prefix: `bk-${prefix}`,
              loops: 2,
              ttrSec: BEANSTALKD_TTR_SEC,
            }),
          disturb: async (k) => {
            await server.kill9();
            await server.start(90_000); // a start takes 10–15 s on this loaded 2-core host
            if (k % 2 === 0) {
              // after reconciliation had a chance (settle + a few rounds), the store loses everything
              await sleep(SETTLE_MS + 1000);
              await wipeAndWaitForRestore();
            }
          },
          afterDrain: async () => {
            await sleep(AGREE_AFTER_MS);
            disagreeing = await disagreements(db, server.url, prefix);
            // a last wipe: a finish the journal missed would now come back; the consumers are still running
            await wipeAndWaitForRestore();
            await sleep(3000);
          },
        });
        const reconciled = await db.query<{ n: unknown }>(
          `SELECT COUNT(*) AS n FROM delayq_job_history WHERE reason LIKE 'reconciled:%'`,
        );
        const numbers = checkNumbers(report.companionEvents as NumberEvent[], BEANSTALKD_TTR_SEC * 1000);
        recordFigure(`journal-kill-wipe-${dialect}`, {
          summary: summarize(`redis+${dialect} kill+wipe`, report),
          wipes,
          duplicates: report.duplicates.length,
          beanstalkd: {
            puts: numbers.puts,
            reserves: numbers.reserves,
            deletes: numbers.deletes,
            givenTwice: numbers.givenTwice.length,
            namedAnother: numbers.namedAnother.length,
            heldTwice: numbers.heldTwice.length,
          },
          deliveredAfterFinish: report.deliveredAfterFinish.length,
          journalDisagreesAfterMs: { afterMs: AGREE_AFTER_MS, count: disagreeing.length },
          endsJournaledByReconciliation: Number(reconciled[0]!.n),
        });
        expect(report.acked).toBeGreaterThan(30);
        expect(report.lost).toEqual([]);
        expect(report.early).toEqual([]);
        expect(report.deliveredAfterFinish).toEqual([]);
        expect(report.resurrected).toEqual([]);
        expect(disagreeing).toEqual([]);
        // a reservation is journaled before it is answered: a wipe never hands a held job to another consumer
        expect(report.duplicates).toEqual([]);
        expect(numbers.puts).toBeGreaterThan(10);
        expect(numbers.givenTwice).toEqual([]);
        expect(numbers.namedAnother).toEqual([]);
        expect(numbers.heldTwice).toEqual([]);
      },
      LONG ? 900_000 : 240_000,
    );
  });
}
