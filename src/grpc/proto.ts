/**
 * The gRPC API's definition, loaded at run time from proto/delayq/v1/delayq.proto (no generated code).
 * Loader options: 64-bit integers as JS numbers (epoch ms and counts fit), camelCase field names, proto3
 * `optional` fields absent when unset, repeated fields always arrays.
 */
import { fileURLToPath } from 'node:url';
import {
  loadPackageDefinition,
  type GrpcObject,
  type ServiceClientConstructor,
  type ServiceDefinition,
} from '@grpc/grpc-js';
import { loadSync, type Options, type PackageDefinition } from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';

/** From src/grpc/ and dist/grpc/ alike: the repository's (or package's) proto/ folder. */
export const PROTO_PATH = fileURLToPath(new URL('../../proto/delayq/v1/delayq.proto', import.meta.url));
export const SERVICE_NAME = 'delayq.v1.Delayq';

export const LOADER_OPTIONS: Options = {
  longs: Number,
  enums: String,
  defaults: false,
  arrays: true,
  objects: false,
  oneofs: false,
};

let cached: PackageDefinition | undefined;

export function delayqPackageDefinition(): PackageDefinition {
  cached ??= loadSync(PROTO_PATH, LOADER_OPTIONS);
  return cached;
}

/**
 * What server reflection describes: the Delayq service and the standard health service served beside it
 * (grpc.health.v1.Health), so `grpcurl list` names both.
 */
export function reflectedPackageDefinition(): PackageDefinition {
  return { ...loadSync(healthProtoPath, LOADER_OPTIONS), ...delayqPackageDefinition() };
}

export function delayqServiceDefinition(): ServiceDefinition {
  return delayqPackageDefinition()[SERVICE_NAME] as ServiceDefinition;
}

/** A client constructor for the Delayq service (tests, bench, Node callers). */
export function delayqClientConstructor(): ServiceClientConstructor {
  const pkg = loadPackageDefinition(delayqPackageDefinition()) as unknown as { delayq: { v1: GrpcObject } };
  return pkg.delayq.v1['Delayq'] as ServiceClientConstructor;
}
