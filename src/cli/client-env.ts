/**
 * Which server the client commands talk to: DELAYQ_URL and DELAYQ_TOKEN unless flags say. Read here, not
 * through config.ts, so a client command loads no config schema: config.ts is otherwise the only reader
 * of the environment. The default is the SDK's (config.ts's default listener; test/house/defaults.test.ts
 * keeps the two equal).
 */
import { DEFAULT_CLIENT_URL } from '../client/client.js';

export function clientSettings(env: Record<string, string | undefined> = process.env): {
  url: string;
  token: string | undefined;
} {
  return { url: env['DELAYQ_URL'] || DEFAULT_CLIENT_URL, token: env['DELAYQ_TOKEN'] || undefined };
}
