import { loadConfig } from '../src/config.js';
import { createService } from '../src/create-service.js';
import { buildApp } from '../src/server/app.js';
import { pino } from 'pino';
const config = loadConfig({ env: {}, overrides: { sqlite: { path: ':memory:' }, rateLimit: { max: 3, windowMs: 60000 }, auth: { tokens: [{ token: 'admin-token-0123456789', name: 'ops' }, { token: 'orders-token-0123456789', topics: ['orders.'] }] } } });
const service = createService(config); await service.start();
const app = await buildApp(service, config, { logger: pino({ level: 'info' }) });
await app.ready();
const A = { authorization: 'Bearer orders-token-0123456789' };
const O = { authorization: 'Bearer admin-token-0123456789' };
for (const [m, u, h] of [['GET','/clearAll',{}],['GET','/%63learAll',A],['GET','/%72eStore',A],['POST','/youzan',{}],['GET','/health',{}],['GET','/health',{}],['GET','/health',{}],['GET','/health',{}],['GET','/v1/stats',O],['GET','/v1/stats',O],['GET','/v1/stats',O],['GET','/v1/stats',O],['GET','/clearAll',O],['GET','/v1/stats',A]] as const) {
  const r = await app.inject({ method: m, url: u, headers: h as any });
  console.log(m, u, JSON.stringify(h).slice(0,20), r.statusCode, r.headers['retry-after'], r.body.slice(0, 200));
}
await app.close(); await service.close();
