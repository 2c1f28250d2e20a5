import { Redis } from 'ioredis';
import { DelayqService } from '../src/service.js';
import { RedisStore } from '../src/store/redis/redis-store.js';
import { aJob } from '../test/helpers/jobs.js';
import { startRedis } from '../test/helpers/redis-servers.js';
const server = await startRedis(7041);
const admin = new Redis({ port: 7041 });
const store = new RedisStore({ url: 'redis://127.0.0.1:7041', nodeId: 'p' });
const service = new DelayqService({ store, clock: store.clock });
await service.start();
const BODY = JSON.stringify({ pad: 'x'.repeat(90) });
const count = 20000;
const dueAt = store.clock.now() + 3000;
for (let i = 0; i < count; i += 1000) await store.push(Array.from({ length: 1000 }, () => aJob({ topic: 'burst', body: BODY, runAt: dueAt, now: dueAt - 1 })), store.clock.now());
await admin.config('RESETSTAT'); await admin.config('SET', 'slowlog-log-slower-than', '0'); await admin.config('SET', 'slowlog-max-len', '100000');
let finished = 0, lastAt = 0; const c0 = process.cpuUsage();
await Promise.all(Array.from({ length: 8 }, async () => {
  while (finished < count) {
    const got = await service.reserve({ topics: ['burst'], count: 100, waitMs: 1000 });
    await Promise.all(got.map((r) => service.finish(r.job.id, r.token)));
    finished += got.length; if (got.length) lastAt = store.clock.now();
  }
}));
console.log('rate', count / ((lastAt - dueAt) / 1000), 'ms', lastAt - dueAt);
console.log((await admin.info('commandstats')).split('\n').filter((l) => /calls=/.test(l)).join('\n'));
console.log(process.cpuUsage(c0));
const log = (await admin.slowlog('GET', 100000)) as any[];
const shas = new Map<string, string>();
for (const name of ['push','finish','reserve','promote','due-scores','lapsed','expire','purge','get']) { const src = (await import('node:fs')).readFileSync(`src/store/redis/lua/${name}.lua`, 'utf8'); shas.set((await import('node:crypto')).createHash('sha1').update(src).digest('hex'), name); }
const agg = new Map<string, [number, number]>();
for (const e of log) { const args = e[3] as string[]; const key = args[0] === 'EVALSHA' || args[0] === 'evalsha' ? (shas.get(args[1]) ?? args[1]) : args[0]; const a = agg.get(key) ?? [0, 0]; a[0]++; a[1] += Number(e[2]); agg.set(key, a); }
console.log([...agg].map(([k, [n, us]]) => `${k}: ${n} calls, ${Math.round(us / n)} us avg`).join('\n'));
await service.close(); await admin.quit(); await server.stop();
