/**
 * Tenant isolation: two tokens limited to `orders.` and `billing.` topics and an admin, on the embedded store
 * and on Redis. Every operation of the served OpenAPI document and every method of the gRPC service is tried
 * by orders on billing's jobs, topics and schedules (support/rest-probes.ts, support/grpc-probes.ts): nothing
 * of billing's is readable (no answer holds what orders did not send itself, and another topic's job or
 * schedule answers as an unknown one), and nothing changes (billing's whole state is the same before and
 * after). The list of operations comes from the document and the service definition, so an operation
 * added without a probe fails here. docs/security.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delayqServiceDefinition } from '../../src/grpc/proto.js';
import { grpcClient, type GrpcClient } from '../grpc/grpc-client.js';
import { prefixPool } from '../helpers/redis-prefix.js';
import { GRPC_PROBES } from './support/grpc-probes.js';
import { REST_PROBES } from './support/rest-probes.js';
import { ADMIN, BILLING, SHAPES, call, startTenantNode, type TenantNode } from './support/tenant-node.js';
import { buildWorld, type World } from './support/tenant-world.js';

const prefixes = prefixPool('tenants');
afterAll(() => prefixes.sweep());

describe.each(['embedded', 'redis'])('tenant isolation · %s', (shape) => {
  let node: TenantNode;
  let world: World;
  let client: GrpcClient;
  let before: unknown;

  beforeAll(async () => {
    node = await startTenantNode(SHAPES[shape]!.overrides(prefixes.next()));
    client = grpcClient(node.grpcTarget);
    world = await buildWorld(node.url);
    before = await world.photograph();
  });
  afterAll(async () => {
    client?.close();
    await node?.close();
  });

  it('has a probe for every operation of the OpenAPI document and every gRPC method', async () => {
    const doc = (await call(node.url, null, 'GET', '/openapi.json')).body;
    const operations = Object.entries(doc.paths as Record<string, object>).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.length).toBeGreaterThan(40);
    expect(operations.filter((op) => !(op in REST_PROBES))).toEqual([]);
    expect(Object.keys(REST_PROBES).filter((op) => !operations.includes(op))).toEqual([]);
    const methods = Object.keys(delayqServiceDefinition());
    expect(methods.filter((m) => !(m in GRPC_PROBES))).toEqual([]);
    expect(Object.keys(GRPC_PROBES).filter((m) => !methods.includes(m))).toEqual([]);
  });

  it.each(Object.keys(REST_PROBES))('REST %s: orders reads and changes nothing of billing', async (operation) => {
    await REST_PROBES[operation]!(world);
  });

  it.each(Object.keys(GRPC_PROBES))('gRPC %s: orders reads and changes nothing of billing', async (method) => {
    await GRPC_PROBES[method]!(world, client);
  });

  it("billing's jobs, schedules, pauses and bindings are as they were; its reservation is still its own", async () => {
    expect(await world.photograph()).toEqual(before);
    // The admin sees billing's hidden topic: the data orders never saw is there.
    const adminTopics = (await world.admin('GET', '/v1/stats')).body.topics.map((t: { topic: string }) => t.topic);
    expect(adminTopics).toContain(world.hiddenTopic);
    const finish = await call(node.url, BILLING, 'POST', `/v1/jobs/${world.named.reserved}/finish`, {
      token: world.reservationToken,
    });
    expect(finish.body.job).toMatchObject({ state: 'finished' });
    expect((await call(node.url, ADMIN, 'GET', `/v1/jobs/${world.named.reserved}`)).body.outcome).toBeUndefined();
  });
});
