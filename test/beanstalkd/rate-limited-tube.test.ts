import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BeanstalkdServer } from '../../src/beanstalkd/server.js';
import { startServer, type TestServer } from '../helpers/http-server.js';
import { RawSession } from './raw-socket.js';

// docs/flow-control.md: the beanstalkd reserve commands honour a topic's dispatch rate limit; a
// reserve-with-timeout refused a token waits for the next one, not for its whole timeout.
describe('the beanstalkd listener on a rate-limited tube', () => {
  let http: TestServer;
  let listener: BeanstalkdServer;
  let s: RawSession;

  beforeAll(async () => {
    http = await startServer();
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
  });

  it('hands out the burst, leaves the rest ready, and gives the next job when its token comes', async () => {
    await http.service.topics.putSettings('rated', { rateLimit: { perSecond: 0.001, burst: 1 } });
    expect(await s.ask('use rated')).toBe('USING rated');
    expect(await s.ask('watch rated')).toBe('WATCHING 2');
    for (let i = 0; i < 3; i++) expect(await s.ask('put 0 0 60 1\r\nx')).toMatch(/^INSERTED \d+$/);
    s.send('reserve-with-timeout 0\r\n');
    expect((await s.withBody()).line).toMatch(/^RESERVED \d+ 1$/);
    expect(await s.ask('reserve-with-timeout 0')).toBe('TIMED_OUT');
    s.send('stats-tube rated\r\n');
    expect((await s.withBody()).body.toString()).toContain('current-jobs-ready: 2');
    // 20 a second: the next token is 50 ms away, well inside the 10 s timeout (which a missed wake-up would take).
    await http.service.topics.putSettings('rated', { rateLimit: { perSecond: 20, burst: 1 } });
    s.send('reserve-with-timeout 10\r\n');
    expect((await s.withBody()).line).toMatch(/^RESERVED \d+ 1$/);
    s.send('reserve-with-timeout 10\r\n');
    expect((await s.withBody()).line).toMatch(/^RESERVED \d+ 1$/);
  });
});
