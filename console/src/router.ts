/**
 * The console's place is the URL hash: `#/<view>[/<name>]?<params>`. Every view reads its filters, sort and
 * page from the params and writes them back, so a link shows the same view to whoever opens it.
 */
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  /** `/topics`, `/job/<id>`… (decoded). */
  path: string;
  params: URLSearchParams;
}

function current(): Route {
  const hash = location.hash || '#/topics';
  const [path = '/topics', search = ''] = hash.slice(1).split('?');
  return { path: decodeURIComponent(path), params: new URLSearchParams(search) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const onChange = () => setRoute(current());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/** The hash of a view with these params (empty values left out). */
export function href(path: string, params: Record<string, string | number | undefined | null> = {}): string {
  const kept = Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== '');
  const search = new URLSearchParams(kept.map(([k, v]) => [k, String(v)])).toString();
  return `#${path.split('/').map(encodeURIComponent).join('/')}${search ? `?${search}` : ''}`;
}

/** Changes some params of the current view (null or '' removes one); a new history entry, so Back returns. */
export function setParams(patch: Record<string, string | number | undefined | null>): void {
  const { path, params } = current();
  const merged: Record<string, string | number | undefined | null> = Object.fromEntries(params);
  Object.assign(merged, patch);
  location.hash = href(path, merged);
}
