import { loadConfig } from '../src/config.js';
import { createService } from '../src/create-service.js';
import { buildApp } from '../src/server/app.js';
const config = loadConfig({ env: {}, overrides: { sqlite: { path: ':memory:' } } });
const service = createService(config); await service.start();
const app = await buildApp(service, config);
await app.ready();
for (const url of ['/docs/*', '/docs/', '/docs', '/docs/json', '/docs/static/index.html']) for (const m of ['GET','HEAD']) console.log(m, url, app.hasRoute({ method: m as any, url }));
app.addHook; await app.close(); await service.close();
