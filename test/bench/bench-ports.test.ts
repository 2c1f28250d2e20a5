// The benchmark's port hand-out: a subject asks for several ports before its servers listen, so consecutive
// calls must never answer the same port, and a port in use is skipped.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, PORT_MAX, PORT_MIN } from '../../bench/servers.js';

describe('bench freePort', () => {
  it('answers distinct ports to consecutive calls, skipping one in use, round the range', async () => {
    const first = await freePort();
    const next = first === PORT_MAX ? PORT_MIN : first + 1;
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(next, '127.0.0.1', resolve));
    try {
      const more = [await freePort(), await freePort()];
      expect(new Set([first, ...more]).size).toBe(3);
      expect(more).not.toContain(next);
      for (const port of [first, ...more]) {
        expect(port).toBeGreaterThanOrEqual(PORT_MIN);
        expect(port).toBeLessThanOrEqual(PORT_MAX);
      }
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });
});
