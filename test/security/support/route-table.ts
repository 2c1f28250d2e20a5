import type { FastifyInstance } from 'fastify';

export interface RouteEntry {
  method: string;
  /** The route pattern as registered (`/v1/jobs/:id/finish`, `/docs/*`). */
  url: string;
}

/**
 * Every (method, pattern) of a ready Fastify app, read from `printRoutes` (Fastify keeps no public list).
 * The tree prints each node's path relative to its parent; depth comes from the 4-character indent.
 * Each entry is checked with `hasRoute`, so a parsing mistake fails loudly instead of hiding a route.
 */
export function routeTable(app: FastifyInstance): RouteEntry[] {
  const stack: string[] = [];
  const routes: RouteEntry[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const at = line.search(/[├└]── /);
    if (at < 0) continue;
    const depth = at / 4;
    const match = /^(.*?)(?: \(([^)]*)\))?$/.exec(line.slice(at + 4))!;
    const path = (stack[depth - 1] ?? '') + match[1]!;
    stack[depth] = path;
    stack.length = depth + 1;
    for (const method of (match[2] ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean))
      routes.push({ method, url: path });
  }
  for (const route of routes) {
    const has = (method: string) => app.hasRoute({ method: method as 'GET', url: route.url });
    // Fastify's automatic HEAD twin of a GET route is not always visible to hasRoute.
    if (route.url.endsWith('*')) continue; // wildcard patterns are not addressable by hasRoute
    if (!has(route.method) && !(route.method === 'HEAD' && has('GET')))
      throw new Error(`route table parse error: ${route.method} ${route.url} is not a route`);
  }
  return routes;
}

/** A concrete URL for a pattern: `:id` → `id`, `:topic` → `topic`, `*` → `wildcard` (default: a file swagger-ui serves under /docs/static/). */
export function concreteUrl(pattern: string, values: { id?: string; topic?: string; wildcard?: string } = {}): string {
  return pattern
    .replace(/:id\b/g, encodeURIComponent(values.id ?? 'job-1'))
    .replace(/:topic\b/g, encodeURIComponent(values.topic ?? 'orders.a'))
    .replace(/\*$/, values.wildcard ?? 'static/swagger-ui.css');
}
