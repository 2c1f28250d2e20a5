/**
 * A delayq node with its three front ends (REST, gRPC, beanstalkd) on one service, over a redis-server of the
 * test's own (so FLUSHALL and rollbacks never touch the shared 6379), with or without a SQL journal: the
 * shapes a store loss is tested in (store-loss-*.test.ts).
 */
import type { ClientDuplexStream } from '@grpc/grpc-js';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { BeanstalkdServer } from '../../src/beanstalkd/server.js';
import type { Config } from '../../src/config.js';
import { DelayqGrpcServer } from '../../src/grpc/grpc-server.js';
import { RawSession } from '../beanstalkd/raw-socket.js';
import { call, grpcClient, type GrpcClient } from '../grpc/grpc-client.js';
import { http, startServer, waitFor, type TestServer } from '../helpers/http-server.js';
import { MYSQL_URL, PG_URL, type JournalDatabase } from '../helpers/journal-databases.js';

export interface Shape {
  name: string;
  /** The journal's database, or none (Redis alone). */
  db: JournalDatabase | undefined;
}

export interface Node {
  http: TestServer;
  url: string;
  grpc: GrpcClient;
  beanstalkdPort: number;
  prefix: string;
  close(): Promise<void>;
}

/** A node of `shape` on `redisUrl`; give `prefix` to start a second instance on another node's data. */
export async function startNode(
  shape: Shape,
  redisUrl: string,
  overrides: Record<string, unknown> = {},
  prefix = `loss${randomBytes(4).toString('hex')}`,
): Promise<Node> {
  const db = shape.db;
  const journal = !db
    ? {}
    : db.dialect === 'postgres'
      ? { journal: { kind: 'postgres', url: PG_URL, schema: db.name, ...(overrides['journal'] as object) } }
      : { journal: { kind: 'mysql', url: `${MYSQL_URL}/${db.name}`, ...(overrides['journal'] as object) } };
  const server = await startServer({
    overrides: { ...overrides, store: { kind: 'redis' }, redis: { url: redisUrl, prefix }, ...journal },
  });
  const grpcServer = new DelayqGrpcServer(server.service, server.config as Readonly<Config>);
  const grpcPort = await grpcServer.listen(0, '127.0.0.1');
  const beanstalkd = new BeanstalkdServer(server.service, {
    host: '127.0.0.1',
    port: 0,
    maxJobSize: server.config.jobs.bodyMaxBytes,
  });
  const beanstalkdPort = await beanstalkd.listen();
  const client = grpcClient(`127.0.0.1:${grpcPort}`);
  return {
    http: server,
    url: server.url,
    grpc: client,
    beanstalkdPort,
    prefix,
    async close() {
      client.close();
      await beanstalkd.close();
      await grpcServer.close(100);
      await server.close();
    },
  };
}

/** A job pushed over REST, ready at once (or after delayMs). */
export async function pushJob(node: Node, topic: string, body: unknown = { n: 1 }, delayMs = 0): Promise<string> {
  const res = await http(node.url, 'POST', '/v1/jobs', { json: { topic, body, delayMs } });
  if (res.status !== 201) throw new Error(`push answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.job.id as string;
}

/** The job's state as REST shows it (404: null). */
export async function stateOf(node: Node, id: string): Promise<string | null> {
  const res = await http(node.url, 'GET', `/v1/jobs/${id}`);
  return res.status === 404 ? null : (res.body.job.state as string);
}

/** A holder of a reservation, through one front end: its token, and how it settles the job. */
export interface Holder {
  id: string;
  /** The reservation's token (a beanstalkd holder has none: its connection holds the reservation). */
  token: string | null;
  /** Finishes (beanstalkd: deletes) the job; resolves with the front end's answer. */
  finish(): Promise<{ ok: boolean; answer: string }>;
  close(): void;
}

export type FrontEnd = 'rest' | 'grpc' | 'beanstalkd';
export const FRONT_ENDS: readonly FrontEnd[] = ['rest', 'grpc', 'beanstalkd'];

/** Reserves one job of `topic` (TTR `ttrMs`) through a front end. */
export async function reserveThrough(node: Node, frontEnd: FrontEnd, topic: string, ttrMs: number): Promise<Holder> {
  if (frontEnd === 'rest') {
    const res = await http(node.url, 'POST', '/v1/reserve', { json: { topics: [topic], waitMs: 5000, ttrMs } });
    const r = res.body.reservations[0] as { job: { id: string }; token: string };
    return {
      id: r.job.id,
      token: r.token,
      async finish() {
        const done = await http(node.url, 'POST', `/v1/jobs/${r.job.id}/finish`, { json: { token: r.token } });
        return { ok: done.status === 200, answer: `${done.status} ${JSON.stringify(done.body)}` };
      },
      close: () => undefined,
    };
  }
  if (frontEnd === 'grpc') {
    // The stream stays open while the job is held: a stream that ends gives its reservations back.
    const stream = openReserveStream(node.grpc, topic, ttrMs);
    const r = await stream.next();
    return {
      id: r.job.id,
      token: r.token,
      async finish() {
        try {
          await call(node.grpc, 'Finish', { id: r.job.id, token: r.token });
          return { ok: true, answer: 'OK' };
        } catch (err) {
          return { ok: false, answer: String((err as Error).message) };
        }
      },
      close: () => stream.close(),
    };
  }
  const session = await RawSession.open(node.beanstalkdPort);
  await session.ask(`watch ${topic}`);
  session.send(`reserve-with-timeout 5\r\n`);
  const { line } = await session.withBody();
  const number = line.split(' ')[1]!;
  const id = (await node.http.service.store.numbers.idOf(Number(number)))!;
  return {
    id,
    token: null,
    async finish() {
      const answer = await session.ask(`delete ${number}`);
      return { ok: answer === 'DELETED', answer };
    },
    close: () => session.close(),
  };
}

/** A gRPC reserve stream of one topic: `next()` waits for its next reservation. */
export function openReserveStream(client: GrpcClient, topic: string, ttrMs?: number, timeoutMs = 10_000) {
  const stream: ClientDuplexStream<any, any> = client['Reserve']();
  const got: any[] = [];
  stream.on('data', (m: any) => got.push(...(m.reservations ?? [])));
  stream.on('error', () => undefined);
  stream.write({ subscribe: { topics: [topic], ...(ttrMs ? { ttrMs } : {}) }, credit: 1 });
  return {
    async next(): Promise<{ job: { id: string }; token: string }> {
      await waitFor(() => got.length > 0, `a reservation of ${topic} on the gRPC stream`, timeoutMs);
      return got.shift();
    },
    received: () => got.length,
    close: () => stream.cancel(),
  };
}

/** FLUSHALL on the test's own redis-server. */
export async function flushAll(redisUrl: string): Promise<void> {
  const r = new Redis(redisUrl);
  try {
    await r.flushall();
  } finally {
    r.disconnect();
  }
}

/**
 * The node's Redis data as it is now; `rollback()` puts every key of the prefix back as it was (and drops the
 * keys made since): what a failover to a replica that missed the writes since does to the data set.
 */
export async function snapshot(redisUrl: string, prefix: string): Promise<{ rollback(): Promise<void> }> {
  const r = new Redis(redisUrl);
  const keysOf = async () => [...(await r.keys(`{${prefix}:*`)), ...(await r.keys(`${prefix}:*`))];
  const dumps = new Map<string, Buffer>();
  for (const key of await keysOf()) {
    const dump = await r.dumpBuffer(key);
    if (dump) dumps.set(key, dump);
  }
  return {
    async rollback() {
      try {
        const multi = r.multi();
        for (const key of await keysOf()) if (!dumps.has(key)) multi.del(key);
        for (const [key, dump] of dumps) multi.restore(key, 0, dump, 'REPLACE');
        await multi.exec();
      } finally {
        r.disconnect();
      }
    },
  };
}
