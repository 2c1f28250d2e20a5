/**
 * The gRPC server: the Delayq service (proto/delayq/v1/delayq.proto) with server reflection and the
 * standard health service (grpc.health.v1; "" and "delayq.v1.Delayq" report SERVING while the service
 * is open). Listens on its own port beside the HTTP server when `grpc.enabled` is set (docs/grpc.md).
 */
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation } from 'grpc-health-check';
import { pino, type Logger } from 'pino';
import type { Config } from '../config.js';
import type { DelayqService } from '../service/service.js';
import { CallGuard } from './call-guard.js';
import { delayqServiceDefinition, reflectedPackageDefinition, SERVICE_NAME } from './proto.js';
import { ReserveStreams } from './reserve-stream.js';
import { unaryHandlers, type HandlerContext } from './unary-handlers.js';
import { operatorHandlers } from './operator-handlers.js';
import { topicSettingsHandlers } from './topic-settings-handlers.js';
import { groupPauseHandlers } from './group-pause-handlers.js';

export interface GrpcServerOptions {
  logger?: Logger;
}

export class DelayqGrpcServer {
  private readonly server: Server;
  private readonly streams = new ReserveStreams();
  private readonly health: HealthImplementation;
  private readonly logger: Logger;

  private readonly config: Readonly<Config>;

  constructor(service: DelayqService, config: Readonly<Config>, options: GrpcServerOptions = {}) {
    this.config = config;
    this.logger = options.logger ?? pino({ level: 'silent' });
    const context: HandlerContext = { service, guard: new CallGuard(config), logger: this.logger };
    this.server = new Server({
      'grpc.max_receive_message_length': config.grpc.maxMessageBytes,
      'grpc.max_send_message_length': config.grpc.maxMessageBytes,
    });
    this.server.addService(delayqServiceDefinition(), {
      ...unaryHandlers(context),
      ...operatorHandlers(context),
      ...topicSettingsHandlers(context),
      ...groupPauseHandlers(context),
      Reserve: this.streams.handler(context),
    });
    new ReflectionService(reflectedPackageDefinition()).addToServer(this.server);
    this.health = new HealthImplementation({ '': 'SERVING', [SERVICE_NAME]: 'SERVING' });
    this.health.addToServer(this.server);
  }

  /** Binds `grpc.host:grpc.port` (or the given port) and starts serving; resolves to the bound port. */
  listen(port = this.config.grpc.port, host = this.config.grpc.host): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.bindAsync(
        `${host.includes(':') ? `[${host}]` : host}:${port}`,
        ServerCredentials.createInsecure(),
        (err, bound) => {
          if (err) reject(err);
          else resolve(bound);
        },
      );
    });
  }

  /** Reserve streams open right now. */
  get openStreams(): number {
    return this.streams.size;
  }

  /**
   * Graceful stop, before the service closes: health turns NOT_SERVING, reserve streams end with
   * UNAVAILABLE (their reservations stay reserved), calls in flight get `graceMs` to finish.
   */
  async close(graceMs = 2000): Promise<void> {
    this.health.setStatus('', 'NOT_SERVING');
    this.health.setStatus(SERVICE_NAME, 'NOT_SERVING');
    this.streams.shutdown();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, graceMs);
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
