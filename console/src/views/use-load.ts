import { useCallback, useEffect, useState } from 'preact/hooks';

/** Loads data on mount and on `reload()`, optionally every `everyMs`; errors become a message. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], everyMs = 0) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState('');
  const reload = useCallback(() => {
    load().then(
      (d) => (setData(d), setError('')),
      (err: Error) => setError(err.message),
    );
  }, deps);
  useEffect(() => {
    reload();
    if (!everyMs) return;
    const timer = setInterval(reload, everyMs);
    return () => clearInterval(timer);
  }, [reload]);
  return { data, error, reload };
}
