import type { Logger } from 'pino';

/**
 * Reads something back from the store every `everyMs` (what other processes on a shared store changed), after
 * one read that the caller awaits. A failed read is logged and tried again at the next turn. Returns the stop.
 */
export async function startRefreshLoop(
  refresh: () => Promise<void>,
  everyMs: number,
  logger: Logger,
  failure: string,
): Promise<() => void> {
  await refresh();
  const timer = setInterval(() => {
    refresh().catch((err: unknown) => logger.error({ err }, failure));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
