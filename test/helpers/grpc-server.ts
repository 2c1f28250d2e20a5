import type { Config } from '../../src/config.js';
import { DelayqGrpcServer } from '../../src/grpc/grpc-server.js';
import { startServer, type TestServer } from './http-server.js';

export interface GrpcTestServer extends TestServer {
  grpc: DelayqGrpcServer;
  /** host:port of the gRPC server. */
  grpcTarget: string;
}

/** The HTTP server of http-server.ts plus the gRPC server on another free loopback port, over one service. */
export async function startGrpcServer(overrides: Record<string, unknown> = {}): Promise<GrpcTestServer> {
  const http = await startServer({ overrides });
  const grpc = new DelayqGrpcServer(http.service, http.config as Readonly<Config>);
  const port = await grpc.listen(0, '127.0.0.1');
  return {
    ...http,
    grpc,
    grpcTarget: `127.0.0.1:${port}`,
    async close() {
      await grpc.close(100);
      await http.close();
    },
  };
}
