// kill -9 of the delayq server, repeatedly, under steady HTTP load: on the embedded SQLite store and on
// Redis + PostgreSQL journal. Short form: 3 kills each; long form (CHAOS_LONG=1): 20 kills each.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigure } from './chaos-figures.js';
import { CHAOS_ROOT, LONG, ServerProcess } from './chaos-processes.js';
import { ChaosRedis } from './chaos-redis.js';
import { runKillLoop, summarize, type KillLoopReport } from './kill-loop.js';

const PG_URL = 'postgres://postgres@127.0.0.1:5432/test';
const kills = LONG ? 20 : 2;
const load = { ratePerSec: LONG ? 200 : 120, delayMaxMs: 1500, ttrMs: 2000, failEvery: 25 };
const interval: [number, number] = LONG ? [1500, 3500] : [800, 1200];

function expectPromiseKept(r: KillLoopReport): void {
  expect(r.acked).toBeGreaterThan(30);
  expect(r.lost).toEqual([]);
  expect(r.early).toEqual([]);
  expect(r.resurrected).toEqual([]);
  expect(r.duplicates).toEqual([]);
  // every redelivery follows a fail or a delivery that was in flight at a kill (its finish never acknowledged)
  expect(r.redeliveries).toBeLessThanOrEqual(r.unsettled + r.fails);
}

describe('kill -9 under load', () => {
  it(
    `SQLite: ${kills} kills, nothing lost, nothing early, nothing resurrected`,
    async () => {
      const path = join(CHAOS_ROOT, `kill-${randomBytes(4).toString('hex')}.db`);
      try {
        const server = new ServerProcess({ port: 7501, nodeId: 'kill-sqlite', store: 'sqlite', sqlitePath: path });
        const report = await runKillLoop(server, {
          ...load,
          kills,
          intervalMs: interval,
          prefix: `ks${randomBytes(3).toString('hex')}`,
        });
        recordFigure('kill9-sqlite', { summary: summarize('sqlite', report) });
        expectPromiseKept(report);
      } finally {
        for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
      }
    },
    LONG ? 900_000 : 240_000,
  );

  describe('Redis + PostgreSQL journal', () => {
    const redis = new ChaosRedis(7510);
    const schema = `dq_chaos_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: PG_URL });
    beforeAll(async () => {
      await redis.start();
      await admin.connect().catch((err: unknown) => {
        throw new Error(`PostgreSQL is required on 127.0.0.1:5432 (user postgres, db test): ${(err as Error).message}`);
      });
    });
    afterAll(async () => {
      await redis.kill();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
      await admin.end();
    });

    it(
      `${kills} kills, nothing lost, nothing early, nothing resurrected`,
      async () => {
        const server = new ServerProcess({
          port: 7502,
          nodeId: 'kill-redis',
          store: 'redis+postgres',
          redisUrl: redis.url,
          pgSchema: schema,
        });
        const report = await runKillLoop(server, {
          ...load,
          kills,
          intervalMs: interval,
          prefix: `kr${randomBytes(3).toString('hex')}`,
        });
        recordFigure('kill9-redis-journal', { summary: summarize('redis+postgres', report) });
        expectPromiseKept(report);
      },
      LONG ? 900_000 : 240_000,
    );
  });
});
