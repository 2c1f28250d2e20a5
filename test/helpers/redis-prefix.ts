import { Redis } from 'ioredis';

/** A random key prefix per test on a shared Redis, and a sweep of everything under the prefixes used. */
export function prefixPool(label: string): { next(): string; sweep(port?: number): Promise<void> } {
  const used: string[] = [];
  return {
    next() {
      const prefix = `t-${label}-${Math.random().toString(36).slice(2, 10)}`;
      used.push(prefix);
      return prefix;
    },
    async sweep(port = 6379) {
      const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
      await redis.connect();
      for (const prefix of used.splice(0)) {
        for (const pattern of [`{${prefix}:*`, `${prefix}:*`]) {
          let cursor = '0';
          do {
            const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
            cursor = next;
            if (keys.length) await redis.unlink(...keys);
          } while (cursor !== '0');
        }
      }
      await redis.quit();
    },
  };
}
