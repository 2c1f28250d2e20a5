import { startBeanstalkd } from '../../bench/servers.js';
import { BeanstalkdServer } from '../../src/beanstalkd/server.js';
import { prefixPool } from '../helpers/redis-prefix.js';
import { startServer, type TestServer } from '../helpers/http-server.js';

/** Something that speaks beanstalkd on a loopback port: delayq (with its HTTP API) or beanstalkd itself. */
export interface Target {
  name: 'sqlite' | 'redis' | 'beanstalkd';
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
  const overrides = name === 'redis' ? { store: { kind: 'redis' }, redis: { prefix: prefixes.next() } } : {};
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
      if (name === 'redis') await prefixes.sweep();
    },
  };
}
