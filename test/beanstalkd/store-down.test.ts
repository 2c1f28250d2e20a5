import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BeanstalkdServer } from '../../src/beanstalkd/server.js';
import { startServer, type TestServer } from '../helpers/http-server.js';
import { startJournalRedis, type JournalRedis } from '../helpers/journal-redis.js';
import { waitFor } from '../helpers/redis-servers.js';
import { RawSession } from './raw-socket.js';

// docs/beanstalkd.md, "Replies and errors": when the store fails (its Redis stopped), a command answers
// INTERNAL_ERROR and the connection stays usable; once Redis is back, the same connection works again.
// A real redis-server of the test's own, stopped and started again.
describe('the beanstalkd listener while its Redis is down', () => {
  let redis: JournalRedis;
  let http: TestServer;
  let listener: BeanstalkdServer;
  let s: RawSession;

  beforeAll(async () => {
    redis = await startJournalRedis();
    http = await startServer({
      overrides: { store: { kind: 'redis' }, redis: { url: redis.url, prefix: 'bsdown', commandTimeoutMs: 500 } },
    });
    listener = new BeanstalkdServer(http.service, {
      host: '127.0.0.1',
      port: 0,
      maxJobSize: http.config.jobs.bodyMaxBytes,
    });
    s = await RawSession.open(await listener.listen());
  });
  afterAll(async () => {
    s.close();
    await listener.close();
    await http.close();
    await redis.stop();
  });

  it('answers INTERNAL_ERROR while Redis is down, then works on the same connection once it is back', async () => {
    expect(await s.ask('use down')).toBe('USING down');
    expect(await s.ask('watch down')).toBe('WATCHING 2');
    expect(await s.ask('put 0 0 10 6\r\nbefore')).toMatch(/^INSERTED \d+$/);

    await redis.stop();
    expect(await s.ask('put 0 0 10 6\r\nduring')).toBe('INTERNAL_ERROR');
    expect(await s.ask('reserve-with-timeout 0')).toBe('INTERNAL_ERROR');
    expect(await s.ask('peek-ready')).toBe('INTERNAL_ERROR');
    // Commands that need no store still answer: the connection is usable.
    expect(await s.ask('list-tube-used')).toBe('USING down');

    await redis.restart(); // empty: it keeps nothing on disk
    let inserted = '';
    await waitFor('a put over the same connection once Redis is back', async () => {
      inserted = await s.ask('put 0 0 10 5\r\nafter');
      return inserted.startsWith('INSERTED');
    });
    const number = inserted.split(' ')[1];
    s.send('reserve-with-timeout 5\r\n');
    expect(await s.withBody()).toEqual({ line: `RESERVED ${number} 5`, body: Buffer.from('after') });
    expect(await s.ask(`delete ${number}`)).toBe('DELETED');
  });
});
