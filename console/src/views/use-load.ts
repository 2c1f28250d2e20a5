import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

/**
 * Loads data on mount, whenever `deps` change, on `reload()` and optionally every `everyMs`; errors become a
 * message. Data loaded for other deps is not handed out (a view never shows one filter's rows under another),
 * and an answer for deps that have changed since it was asked is dropped when it arrives, so a slow answer to
 * the previous filter can never replace the current one's.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], everyMs = 0) {
  const key = JSON.stringify(deps);
  const current = useRef(key);
  current.current = key;
  const [loaded, setLoaded] = useState<{ key: string; data: T } | undefined>(undefined);
  const [error, setError] = useState('');
  const reload = useCallback(() => {
    load().then(
      (data) => {
        if (current.current !== key) return;
        setLoaded({ key, data });
        setError('');
      },
      (err: Error) => {
        if (current.current === key) setError(err.message);
      },
    );
  }, deps);
  useEffect(() => {
    reload();
    if (!everyMs) return;
    const timer = setInterval(reload, everyMs);
    return () => clearInterval(timer);
  }, [reload]);
  return { data: loaded?.key === key ? loaded.data : undefined, error, reload };
}
