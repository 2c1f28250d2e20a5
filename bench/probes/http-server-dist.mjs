// bench/http-server.ts on the built code (dist/, `npm run build` first), for profiling what `delayq serve` runs.
// Usage: node [--cpu-prof] bench/probes/http-server-dist.mjs HTTP_PORT REDIS_PORT
import { loadConfig } from '../../dist/config.js';
import { createService } from '../../dist/create-service.js';
import { buildApp } from '../../dist/server/app.js';

const [httpPort, redisPort] = process.argv.slice(2).map(Number);
const config = loadConfig({
  env: {},
  overrides: { http: { host: '127.0.0.1', port: httpPort }, store: { kind: 'redis' }, redis: { url: `redis://127.0.0.1:${redisPort}` }, nodeId: 'bench-http' },
});
const service = createService(config);
await service.start();
const app = await buildApp(service, config);
await app.listen({ host: '127.0.0.1', port: httpPort });
const stop = async () => {
  await app.close();
  await service.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
