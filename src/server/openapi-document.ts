/**
 * What the generated OpenAPI document must say beyond the route schemas: which operations need the bearer
 * token (every one but the public paths of auth.ts), and which request bodies may be left out (routes with
 * `config.optionalBody`, which default the body themselves). Generated clients are built from this alone.
 */
import type { SwaggerTransform, SwaggerTransformObject } from '@fastify/swagger';
import { isPublicPath } from './auth.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The request body may be left out: the route treats a missing body as `{}`. */
    optionalBody?: boolean;
  }
}

export const BEARER_SCHEME = {
  type: 'http',
  scheme: 'bearer',
  description:
    'Authorization: Bearer <token>. Required by every operation that lists it once the server has tokens configured ' +
    '(auth.tokens, DELAYQ_AUTH_TOKENS); a server without tokens ignores it. /health, /ready, /openapi.json and /docs never need it.',
} as const;

const OPTIONAL_BODY = 'x-delayq-optional-body';

/** Per route: the bearer requirement on every non-public operation, and a mark on optional bodies. */
export const documentRoute: SwaggerTransform = ({ schema, url, route }) => {
  const extra: Record<string, unknown> = isPublicPath(url) ? {} : { security: [{ bearer: [] }] };
  if (route.config?.optionalBody) extra[OPTIONAL_BODY] = true;
  return { schema: { ...schema, ...extra }, url };
};

/** On the whole document: marked bodies become `requestBody.required: false` (the plugin always writes true). */
export const documentObject: SwaggerTransformObject = (document) => {
  if (!('openapiObject' in document)) return document.swaggerObject;
  const { openapiObject } = document;
  for (const item of Object.values(openapiObject.paths ?? {})) {
    for (const operation of Object.values(item ?? {}) as Record<string, unknown>[]) {
      if (typeof operation !== 'object' || operation === null || !(OPTIONAL_BODY in operation)) continue;
      delete operation[OPTIONAL_BODY];
      const body = operation['requestBody'] as { required?: boolean } | undefined;
      if (body) body.required = false;
    }
  }
  return openapiObject;
};
