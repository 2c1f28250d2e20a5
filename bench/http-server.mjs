// The delayq HTTP server as `delayq serve` runs it (the built dist/, see build-server.ts: the whole node with its
// metrics registry, schedule runner and delivery, its logger at the configured level writing to stdout), in its
// own process for the benchmarks over the API: the load generator then does not share the server's event loop.
// Usage: node bench/http-server.mjs HTTP_PORT REDIS_PORT [GRPC_PORT [BEANSTALKD_PORT]]
//    or: node bench/http-server.mjs HTTP_PORT '{"store":{"kind":"sqlite"},…}' [GRPC_PORT]  (config overrides as
//        JSON: the embedded store, Redis, Redis + a SQL journal). GRPC_PORT, BEANSTALKD_PORT: also serve the
//        gRPC API and the beanstalkd protocol (bench/protocol-drain.ts). Add --cpu-prof to profile it.
import { pino } from 'pino';
import { loadConfig } from '../dist/config.js';
import { createRuntime } from '../dist/runtime.js';
import { buildApp } from '../dist/server/app.js';
import { DelayqGrpcServer } from '../dist/grpc/grpc-server.js';
import { BeanstalkdServer } from '../dist/beanstalkd/server.js';

const [httpArg, storeArg, grpcArg, beanstalkdArg] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const httpPort = Number(httpArg);
if (!httpPort || !storeArg) throw new Error('usage: http-server.mjs HTTP_PORT (REDIS_PORT | CONFIG_JSON)');
const store = /^\d+$/.test(storeArg)
  ? { store: { kind: 'redis' }, redis: { url: `redis://127.0.0.1:${storeArg}` } }
  : JSON.parse(storeArg);
const config = loadConfig({
  env: {},
  overrides: { ...store, http: { host: '127.0.0.1', port: httpPort }, nodeId: 'bench-http' },
});
// The composition root, as `delayq serve` builds it (partitions, Redis's clock, the journal, metrics…).
const logger = pino({ level: config.log.level, base: { service: 'delayq' } });
const runtime = createRuntime(config, { logger });
await runtime.start();
const service = runtime.service;
const app = await buildApp(service, config, {
  logger,
  sinks: runtime.sinks,
  schedules: runtime.schedules,
  metrics: runtime.metrics,
});
await app.listen({ host: '127.0.0.1', port: httpPort });
const grpc = grpcArg ? new DelayqGrpcServer(service, config) : undefined;
if (grpc) await grpc.listen(Number(grpcArg), '127.0.0.1');
const beanstalkd = beanstalkdArg
  ? new BeanstalkdServer(service, {
      host: '127.0.0.1',
      port: Number(beanstalkdArg),
      maxJobSize: config.jobs.bodyMaxBytes,
    })
  : undefined;
await beanstalkd?.listen();

const stop = async () => {
  await grpc?.close(100);
  await beanstalkd?.close();
  await app.close();
  await runtime.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
// Never outlive the benchmark that started us.
process.on('disconnect', () => void stop());
