import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { Cluster, Redis } from 'ioredis';
import type { ReadCost } from '../../src/testing/index.js';

/** Commands that read a whole key: they touch as many entries as the key holds (KEYS and SCAN: entries()). */
const WHOLE_KEY = new Set(['hkeys', 'hvals', 'hgetall', 'smembers', 'hscan', 'sscan', 'zscan']);

/** A MONITOR line's arguments: `+1795… [0 lua] "zrange" "{p:0}:dueidx" "0" "-1"` → [zrange, {p:0}:dueidx, 0, -1]. */
function argsOf(line: string): string[] {
  return [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1'));
}

/**
 * What a read touched on Redis, from MONITOR (commands inside scripts included) filtered by the store's key
 * prefix: a whole-key read (HGETALL, HKEYS, ZRANGE 0 -1 …) counts the key's entries, a ranged one what its
 * range holds or its LIMIT allows, any other command 1. The read ends when each server's MONITOR shows a marker
 * (an ECHO, which every Cluster node runs whatever slot it owns) sent after it. `ports`: one server, or every
 * master of a Cluster.
 */
export function redisReadCost(prefix: string, ports: number | readonly number[] = 6379): ReadCost {
  const nodes = typeof ports === 'number' ? [ports] : [...ports];
  return {
    async measure(read) {
      const marker = `{${prefix}:read-cost}:${Math.random().toString(36).slice(2)}`;
      const commands: string[][] = [];
      const monitors = await Promise.all(nodes.map((port) => monitor(port, prefix, marker, commands)));
      const client: Redis | Cluster =
        nodes.length === 1
          ? new Redis({ port: nodes[0]!, host: '127.0.0.1', lazyConnect: true })
          : new Cluster(nodes.map((port) => ({ host: '127.0.0.1', port })));
      try {
        const value = await read();
        await Promise.all(
          nodes.map(async (port) => {
            const echo = new Redis({ port, host: '127.0.0.1' });
            await echo.echo(marker).finally(() => echo.disconnect());
          }),
        );
        await Promise.all(monitors.map((m) => m.ended));
        let touched = 0;
        for (const [name = '', key = '', ...rest] of commands)
          touched += await entries(client, name.toLowerCase(), key, rest);
        return { value, touched };
      } finally {
        for (const m of monitors) m.socket.destroy();
        client.disconnect();
      }
    },
  };
}

/** A MONITOR connection to one server that appends the prefix's commands until it sees the marker. */
async function monitor(
  port: number,
  prefix: string,
  marker: string,
  commands: string[][],
): Promise<{ socket: Socket; ended: Promise<void> }> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let buffered = '';
  let started: () => void = () => {};
  let ended: () => void = () => {};
  const startedP = new Promise<void>((resolve) => (started = resolve));
  const endedP = new Promise<void>((resolve) => (ended = resolve));
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\r\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      if (line === '+OK') started();
      if (!line.includes(`{${prefix}:`)) continue;
      if (line.includes(marker)) ended();
      else if (/^\+[\d.]+ \[\d+ lua\]/.test(line)) commands.push(argsOf(line));
      else if (!/"eval(sha)?"/i.test(line)) commands.push(argsOf(line));
    }
  });
  socket.write('MONITOR\r\n');
  await startedP;
  return { socket, ended: endedP };
}

async function entries(client: Redis | Cluster, name: string, key: string, rest: string[]): Promise<number> {
  // A walk of the keyspace (its pattern names the prefix, so MONITOR's filter keeps it) touches every key.
  if (name === 'keys' || name === 'scan') return client.dbsize();
  if (WHOLE_KEY.has(name))
    return name.startsWith('h')
      ? client.hlen(key)
      : name === 'smembers' || name === 'sscan'
        ? client.scard(key)
        : client.zcard(key);
  if (name === 'zrange' || name === 'zrangebyscore' || name === 'zrangebylex') {
    const upper = rest.map((a) => a.toUpperCase());
    const limit = upper.indexOf('LIMIT');
    if (limit >= 0) return Math.max(1, Number(rest[limit + 2]));
    // By score or by lex, without LIMIT: what the range holds (the reply's size).
    if (upper.includes('BYSCORE') || name === 'zrangebyscore')
      return Math.max(1, await client.zcount(key, rest[0]!, rest[1]!));
    if (upper.includes('BYLEX') || name === 'zrangebylex')
      return Math.max(1, await client.zlexcount(key, rest[0]!, rest[1]!));
    const size = await client.zcard(key);
    const at = (i: number) => (i < 0 ? size + i : i);
    return Math.max(1, Math.min(size - 1, at(Number(rest[1]))) - at(Number(rest[0])) + 1);
  }
  if (name === 'lrange') return Math.max(1, await client.llen(key));
  return 1;
}
