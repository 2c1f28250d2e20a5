import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { http, startServer } from '../helpers/http-server.js';

function capture(): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

describe('request logging', () => {
  for (const bodies of [false, true]) {
    it(`logs every request at debug, and job bodies only when log.bodies is ${bodies}`, async () => {
      const { logger, lines } = capture();
      const server = await startServer({ logger, overrides: { log: { bodies } } });
      try {
        expect(
          (
            await http(server.url, 'POST', '/v1/jobs', {
              json: { topic: 'pii', body: { email: 'someone@example.com' } },
            })
          ).status,
        ).toBe(201);
        expect(lines.some((l) => l.includes('"url":"/v1/jobs"') && l.includes('"status":201'))).toBe(true);
        expect(lines.some((l) => l.includes('someone@example.com'))).toBe(bodies);
      } finally {
        await server.close();
      }
    });
  }
});
