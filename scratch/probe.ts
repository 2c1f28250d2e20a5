import { loadConfig } from '/work/wt-security/src/config.js';
import { createService } from '/work/wt-security/src/create-service.js';
import { buildApp } from '/work/wt-security/src/server/app.js';
const config = loadConfig({ env: {}, overrides: { sqlite: { path: ':memory:' }, auth: { tokens: [{ token: 'admin-token-0123456789' }, { token: 'orders-token-0123456789', topics: ['orders.'] }] } } });
const service = createService(config); await service.start();
const app = await buildApp(service, config);
await app.ready();
console.log(app.printRoutes({ commonPrefix: false }));
const A = { authorization: 'Bearer orders-token-0123456789' };
for (const [m, u, h] of [['GET','/clearAll',{}],['GET','/clearAll',A],['GET','/%63learAll',A],['GET','/reStore',A],['GET','/%72eStore',A],['POST','/youzan',{}],['GET','/v1/stats',{}],['GET','/docs',{}],['GET','/docs/json',{}],['GET','/HEALTH',{}],['GET','/health/',{}],['GET','/v1/jobs/',{}],['GET','/docs/static/index.html',{}], ['GET','//v1/stats',{}], ['GET','/v1/stats;x',{}]] as const) {
  const r = await app.inject({ method: m, url: u, headers: h as any });
  console.log(m, u, JSON.stringify(h).slice(0,20), r.statusCode, r.body.slice(0, 160));
}
await app.close(); await service.close();
