/**
 * What every gRPC call passes before it reaches the service, as over HTTP: the bearer token from the
 * `authorization` metadata (when tokens are configured) and the per-token rate limit (per peer address
 * without auth). A reserve stream counts as one call, like one long-poll request.
 */
import type { Metadata } from '@grpc/grpc-js';
import type { Config } from '../config.js';
import { DelayqError } from '../core/errors.js';
import { principalOfBearer, principalsByDigest, type Principal } from '../server/auth.js';

/** The caller of a gRPC call: `principal` is null when authentication is off (everything is allowed). */
export interface GrpcCaller {
  principal: Principal | null;
}

interface Window {
  startedAt: number;
  count: number;
}

export class CallGuard {
  private readonly byDigest: Map<string, Principal>;
  private readonly rateLimit: Readonly<Config['rateLimit']>;
  private readonly windows = new Map<string, Window>();

  constructor(config: Readonly<Config>) {
    this.byDigest = principalsByDigest(config.auth.tokens);
    this.rateLimit = config.rateLimit;
  }

  /** Throws E_UNAUTHORIZED (no or unknown token) or E_RATE_LIMITED; returns who is calling. */
  admit(metadata: Metadata, peer: string): GrpcCaller {
    const caller = { principal: this.authenticate(metadata) };
    this.count(caller.principal ? `token:${caller.principal.id}` : `ip:${peer.replace(/:\d+$/, '')}`);
    return caller;
  }

  private authenticate(metadata: Metadata): Principal | null {
    if (this.byDigest.size === 0) return null;
    const header = metadata.get('authorization')[0];
    if (typeof header !== 'string' || header === '') {
      throw new DelayqError('E_UNAUTHORIZED', 'send the metadata authorization: Bearer <token>', {
        field: 'authorization',
      });
    }
    const principal = principalOfBearer(this.byDigest, header);
    if (!principal)
      throw new DelayqError('E_UNAUTHORIZED', 'the bearer token is not valid', { field: 'authorization' });
    return principal;
  }

  /** A fixed window per key, as @fastify/rate-limit counts HTTP requests. */
  private count(key: string): void {
    const { max, windowMs } = this.rateLimit;
    if (max === 0) return;
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || now - window.startedAt >= windowMs) {
      if (this.windows.size > 100_000) this.windows.clear(); // bounded memory against many peers
      window = { startedAt: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count++;
    if (window.count > max) {
      const retryAfterMs = window.startedAt + windowMs - now;
      throw new DelayqError(
        'E_RATE_LIMITED',
        `too many requests: at most ${max} per ${windowMs} ms; retry in ${retryAfterMs} ms`,
        {
          details: { limit: max, retryAfterMs },
        },
      );
    }
  }
}
