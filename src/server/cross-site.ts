/**
 * Browsers send requests on behalf of any web page: a page of another site can POST to a delayq on loopback
 * (`fetch(url, {method: 'POST', mode: 'no-cors'})`, a form), and without tokens nothing else stops it. So a
 * request that changes state is refused (403 E_FORBIDDEN) when the browser says it comes from another site
 * (`Sec-Fetch-Site: cross-site | same-site`) or from another origin (`Origin` not this server's and not in
 * `http.allowedOrigins`). Requests without those headers (curl, the SDKs, servers) pass: only browsers add them,
 * and a page cannot take them off. A server on loopback also answers only to loopback host names (and
 * `http.allowedHosts`), so a name rebound to 127.0.0.1 (DNS rebinding) cannot reach it as a same-origin page.
 * docs/security.md.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { DelayqError } from '../core/errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A GET that changes state (the seed-compatible endpoints): guarded as a POST is. */
    changesState?: boolean;
  }
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\]|::1)$/i;

/** The host name of a Host header (`[::1]:7750` → `[::1]`, `example.com:80` → `example.com`). */
function hostName(host: string): string {
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, '');
}

function changesState(request: FastifyRequest): boolean {
  return !READS.has(request.method) || request.routeOptions.config?.changesState === true;
}

/** Whether an `Origin` value names the server the request reached (its Host), scheme aside. */
function isOwnOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  try {
    return new URL(origin).host.toLowerCase() === host.toLowerCase();
  } catch {
    return false; // "null" (sandboxed frames, file: pages) or garbage: not this server
  }
}

export function registerCrossSiteGuard(app: FastifyInstance, http: Readonly<Config['http']>): void {
  const origins = new Set(http.allowedOrigins.map((o) => o.toLowerCase()));
  const hosts = new Set(http.allowedHosts.map((h) => h.toLowerCase()));
  const checkHost = LOOPBACK_HOST.test(http.host) && !hosts.has('*');
  app.addHook('onRequest', async (request) => {
    const host = request.headers.host;
    if (checkHost && host !== undefined) {
      const name = hostName(host).toLowerCase();
      if (!LOOPBACK_HOST.test(name) && !hosts.has(name))
        throw new DelayqError(
          'E_FORBIDDEN',
          `this server listens on loopback and does not answer to the host name "${name}" (add it to http.allowedHosts)`,
          { field: 'host' },
        );
    }
    if (!changesState(request)) return;
    const origin = request.headers.origin;
    if (origin !== undefined && origins.has(origin.toLowerCase())) return;
    const site = request.headers['sec-fetch-site'];
    if (site === 'cross-site' || site === 'same-site' || (origin !== undefined && !isOwnOrigin(origin, host)))
      throw new DelayqError(
        'E_FORBIDDEN',
        `a web page of another origin (${origin ?? site}) may not change state here; ` +
          'call the API from a program, or add the page’s origin to http.allowedOrigins',
        { field: 'origin' },
      );
  });
}
