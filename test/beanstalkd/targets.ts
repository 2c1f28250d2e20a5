import { startBeanstalkd } from '../../bench/servers.js';
import { BeanstalkdServer } from '../../src/beanstalkd/server.js';
import { prefixPool } from '../helpers/redis-prefix.js';
import { startServer, type TestServer } from '../helpers/http-server.js';
import { PG_URL, postgresJournalDatabase } from '../helpers/journal-databases.js';

/**
 * Something that speaks beanstalkd on a loopback port: delayq (with its HTTP API) on SQLite, on Redis or on
 * Redis with a PostgreSQL journal, or beanstalkd itself.
 */
export interface Target {
  name: 'sqlite' | 'redis' | 'journal' | 'beanstalkd';
  port: number;
  /** delayq's HTTP API (absent for beanstalkd itself). */
  http?: TestServer;
  beanstalkd?: BeanstalkdServer;
  close(): Promise<void>;
}

const prefixes = prefixPool('bstalk');

export async function startTarget(name: Target['name']): Promise<Target> {
  if (name === 'beanstalkd') {
    const server = await startBeanstalkd();
    return { name, port: server.port, close: () => server.stop() };
  }
  const database = name === 'journal' ? await postgresJournalDatabase() : undefined;
  const overrides =
    name === 'sqlite'
      ? {}
      : {
          store: { kind: 'redis' },
          redis: { prefix: prefixes.next() },
          ...(database ? { journal: { kind: 'postgres', url: PG_URL, schema: database.name } } : {}),
        };
  const http = await startServer({ overrides });
  const beanstalkd = new BeanstalkdServer(http.service, {
    host: '127.0.0.1',
    port: 0,
    maxJobSize: http.config.jobs.bodyMaxBytes,
  });
  const port = await beanstalkd.listen();
  return {
    name,
    port,
    http,
    beanstalkd,
    async close() {
      await beanstalkd.close();
      await http.close();
      if (name !== 'sqlite') await prefixes.sweep();
      await database?.drop();
    },
  };
}
