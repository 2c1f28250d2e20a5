import { errorFromResponse } from '../client/error-answer.js';
import { nodeHttpTransport } from '../client/transport.js';
import { DelayqError } from '../core/errors.js';

/** For the API calls the SDK does not wrap (restore, journal, sinks, the due histogram, /metrics): same errors as the SDK. */
export async function rawRequest<T>(
  base: string,
  token: string | undefined,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<T> {
  const headers: Record<string, string> = {};
  if (token) headers['authorization'] = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const transport = nodeHttpTransport(base);
  let answer: { status: number; text: string };
  try {
    answer = await transport.send(method, path, headers, body === undefined ? undefined : JSON.stringify(body));
  } catch (err) {
    throw new DelayqError('E_STORE_UNAVAILABLE', `cannot reach delayq at ${base}: ${(err as Error).message}`, {
      cause: err,
    });
  } finally {
    await transport.close();
  }
  let parsed: unknown = answer.text;
  try {
    parsed = JSON.parse(answer.text);
  } catch {
    /* /metrics is text */
  }
  if (answer.status < 200 || answer.status >= 300) throw errorFromResponse(answer.status, parsed, answer.text);
  return parsed as T;
}
