import { errorFromResponse } from '../client/error-answer.js';
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
  let response: Response;
  try {
    response = await fetch(base.replace(/\/$/, '') + path, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch (err) {
    throw new DelayqError('E_STORE_UNAVAILABLE', `cannot reach delayq at ${base}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* /metrics is text */
  }
  if (!response.ok) throw errorFromResponse(response.status, parsed, text);
  return parsed as T;
}
