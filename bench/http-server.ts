// The delayq HTTP server (Redis store) in its own process, for the HTTP benchmarks: the load generator
// then does not share the server's event loop. Usage: tsx bench/http-server.ts HTTP_PORT REDIS_PORT [GRPC_PORT]
// (with GRPC_PORT it also serves the gRPC API, for bench/protocol-drain.ts).
import { loadConfig } from '../src/config.js';
import { createService } from '../src/create-service.js';
import { buildApp } from '../src/server/app.js';
import { DelayqGrpcServer } from '../src/grpc/grpc-server.js';

const [httpPort, redisPort, grpcPort] = process.argv.slice(2).map(Number);
if (!httpPort || !redisPort) throw new Error('usage: http-server.ts HTTP_PORT REDIS_PORT');
const config = loadConfig({
  env: {},
  overrides: { http: { host: '127.0.0.1', port: httpPort }, store: { kind: 'redis' }, redis: { url: `redis://127.0.0.1:${redisPort}` }, nodeId: 'bench-http' },
});
// The composition root, as `delayq serve --store redis` builds it (partitions, Redis's clock…).
const service = createService(config);
await service.start();
const app = await buildApp(service, config);
await app.listen({ host: '127.0.0.1', port: httpPort });
const grpc = grpcPort ? new DelayqGrpcServer(service, config) : undefined;
if (grpc && grpcPort) await grpc.listen(grpcPort, '127.0.0.1');

const stop = async () => {
  await grpc?.close(100);
  await app.close();
  await service.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
// Never outlive the benchmark that started us.
process.on('disconnect', () => void stop());
