import type { Store } from '../../src/store/store.js';

/**
 * A Store that forwards to a replaceable target: `swap` puts an empty store in place of the old one, as
 * if the inner store lost its data (the SQLite counterpart of FLUSHALL or a Redis restart without
 * persistence). It also counts pushes per id, so tests can prove nothing was loaded twice.
 */
export function swappableStore(
  initial: Store,
): Store & { swap(next: Store): Promise<void>; pushedIds: Map<string, number> } {
  let target = initial;
  const pushedIds = new Map<string, number>();
  const handler: ProxyHandler<Store> = {
    get(_t, prop) {
      if (prop === 'swap') {
        return async (next: Store) => {
          await next.open();
          const old = target;
          target = next;
          await old.close();
        };
      }
      if (prop === 'pushedIds') return pushedIds;
      if (prop === 'pushMany') {
        return async (jobs: Parameters<Store['pushMany']>[0], now: number) => {
          const results = await target.pushMany(jobs, now);
          for (const r of results) if (r.created) pushedIds.set(r.job.id, (pushedIds.get(r.job.id) ?? 0) + 1);
          return results;
        };
      }
      const value = (target as unknown as Record<string | symbol, unknown>)[prop];
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  };
  return new Proxy(initial, handler) as Store & { swap(next: Store): Promise<void>; pushedIds: Map<string, number> };
}
