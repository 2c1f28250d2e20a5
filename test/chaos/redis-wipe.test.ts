// Redis loses everything under load (FLUSHALL, then a restart of an empty server) while the delayq server
// keeps running with the PostgreSQL journal: the journal's restore brings every acknowledged job back.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigure } from './chaos-figures.js';
import { LONG, ServerProcess } from './chaos-processes.js';
import { ChaosRedis } from './chaos-redis.js';
import { runKillLoop, summarize } from './kill-loop.js';

const PG_URL = 'postgres://postgres@127.0.0.1:5432/test';

describe('Redis wiped or restarted empty during load, with the journal', () => {
  const redis = new ChaosRedis(7520);
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
    'loses nothing acknowledged: every job is delivered after the restore',
    async () => {
      const server = new ServerProcess({
        port: 7521,
        nodeId: 'wipe',
        store: 'redis+postgres',
        redisUrl: redis.url,
        pgSchema: schema,
        loaderIntervalMs: 300,
      });
      const disturbances: string[] = [];
      const report = await runKillLoop(server, {
        kills: LONG ? 8 : 2,
        intervalMs: LONG ? [1500, 2500] : [1000, 1500],
        ratePerSec: 120,
        delayMaxMs: 1500,
        ttrMs: 2000,
        prefix: `w${randomBytes(3).toString('hex')}`,
        // even rounds: FLUSHALL; odd rounds: the Redis process dies and comes back empty
        disturb: async (k) => {
          const keys = Number(await redis.command('DBSIZE'));
          if (k % 2 === 0) {
            await redis.command('FLUSHALL');
            disturbances.push(`flushall(${keys} keys)`);
          } else {
            await redis.kill();
            await redis.start();
            disturbances.push(`restart-empty(${keys} keys)`);
          }
          expect(keys).toBeGreaterThan(0);
        },
      });
      recordFigure('redis-wipe-journal', { disturbances, summary: summarize('redis+postgres wipe', report) });
      expect(report.acked).toBeGreaterThan(30);
      expect(report.lost).toEqual([]);
      expect(report.early).toEqual([]);
      expect(report.resurrected).toEqual([]);
      // duplicates are allowed here: a reservation made after the journal's last async flush is forgotten by
      // the wipe, so its job is delivered again before its TTR; the count is in the figure.
    },
    LONG ? 900_000 : 240_000,
  );
});
