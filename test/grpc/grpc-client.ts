/** A promise-friendly Node client of the Delayq gRPC service for the tests. */
import { credentials, Metadata, type Client, type ServiceError } from '@grpc/grpc-js';
import { delayqClientConstructor } from '../../src/grpc/proto.js';

export type GrpcClient = Client & Record<string, any>;

export function grpcClient(target: string): GrpcClient {
  const Ctor = delayqClientConstructor();
  return new Ctor(target, credentials.createInsecure()) as GrpcClient;
}

export function bearer(token: string): Metadata {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

/** Calls a unary method; resolves to the answer, rejects with the ServiceError. */
export function call<T = any>(
  client: GrpcClient,
  method: string,
  request: unknown,
  metadata = new Metadata(),
): Promise<T> {
  return new Promise((resolve, reject) => {
    client[method](request, metadata, (err: ServiceError | null, answer: T) => (err ? reject(err) : resolve(answer)));
  });
}

/** The error a call failed with, with the catalogue code and field from its trailing metadata. */
export async function callError(client: GrpcClient, method: string, request: unknown, metadata = new Metadata()) {
  try {
    await call(client, method, request, metadata);
  } catch (err) {
    return describeError(err as ServiceError);
  }
  throw new Error(`${method} succeeded; an error was expected`);
}

export function describeError(err: ServiceError): {
  status: number;
  code: string | undefined;
  field: string | undefined;
  message: string;
} {
  return {
    status: err.code,
    code: err.metadata?.get('delayq-code')[0]?.toString(),
    field: err.metadata?.get('delayq-field')[0]?.toString(),
    message: err.details,
  };
}

/** Polls `probe` until it returns true (the event, not a fixed sleep), failing after `timeoutMs`. */
export async function until(probe: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const giveUp = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > giveUp) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
