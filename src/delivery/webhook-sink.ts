import http from 'node:http';
import https from 'node:https';
import { SINK_DEFAULTS } from '../config.js';
import type { Job } from '../core/job.js';
import { delivered, failed, failureFrom, jobMetadata, type DeliveryResult, type Sink } from './sink.js';
import type { WebhookSinkConfig } from './sink-config.js';
import { SsrfGuard, SsrfRefusedError } from './ssrf-guard.js';
import { SIGNATURE_HEADER, signWebhook } from '../core/webhook-signature.js';

/** How much of a refusal's body is kept in the job's lastError. */
const ERROR_BODY_CHARS = 300;
/** 4xx answers worth retrying: the receiver is busy or not ready, not refusing the job. */
const RETRYABLE_4XX = new Set([408, 409, 425, 429]);

/**
 * Seed 004's "service mode": the scheduler calls the application back. POSTs the job body (JSON text,
 * byte for byte) with the job's metadata in `Delayq-*` headers, `Idempotency-Key: <job id>` (a retry
 * of a delivery the receiver already handled carries the same key) and, with a secret, an HMAC signature.
 *
 * Built on node:http rather than fetch because fetch cannot pin the connection to the address the SSRF
 * guard vetted; here the guard *is* the socket's DNS lookup, so nothing is sent to a refused address.
 */
export class WebhookSink implements Sink {
  readonly type = 'webhook' as const;
  private readonly config: WebhookSinkConfig;
  private readonly url: URL;
  private readonly guard: SsrfGuard;
  private readonly agents: { http: http.Agent; https: https.Agent };
  private closed = false;

  constructor(config: WebhookSinkConfig) {
    this.config = config;
    this.url = new URL(config.url);
    this.guard = new SsrfGuard(config.allowedRanges ?? []);
    // One keep-alive pool per sink, no bigger than its concurrency: a slow receiver holds only its own sockets.
    const agentOptions = {
      keepAlive: true,
      maxSockets: config.concurrency ?? SINK_DEFAULTS.concurrency,
      lookup: this.guard.lookup,
    };
    this.agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  }

  async deliver(job: Job, signal: AbortSignal): Promise<DeliveryResult> {
    if (this.closed) return failed('the sink is closed');
    const body = Buffer.from(job.body, 'utf8');
    const headers: Record<string, string> = {
      ...this.config.headers,
      ...jobMetadata(job),
      'content-type': 'application/json',
      'content-length': String(body.length),
      'idempotency-key': job.id,
      'user-agent': 'delayq-webhook',
    };
    if (this.config.secret) headers[SIGNATURE_HEADER] = signWebhook(this.config.secret, Date.now(), body);

    let url = this.url;
    for (let hop = 0; ; hop++) {
      const refusal = this.guard.refusalForHost(url.hostname);
      if (refusal) return failed(`refused by the SSRF guard: ${refusal}`, false);
      let answer: { status: number; location: string | undefined; text: string };
      try {
        answer = await this.post(url, headers, body, signal);
      } catch (err) {
        if (err instanceof SsrfRefusedError) return failed(`refused by the SSRF guard: ${err.message}`, false);
        return failureFrom(err, signal);
      }
      const { status } = answer;
      if (status >= 200 && status < 300) return delivered();
      if (status === 307 || status === 308) {
        // 307/308 keep the method and body; any other redirect would turn the POST into a GET.
        const next = answer.location === undefined ? undefined : new URL(answer.location, url);
        if (!next || next.origin !== this.url.origin) {
          return failed(
            `HTTP ${status} redirect to another origin (${next?.origin ?? 'no Location'}) not followed`,
            false,
          );
        }
        if (hop >= (this.config.maxRedirects ?? 3))
          return failed(`more than ${this.config.maxRedirects ?? 3} redirects`, false);
        url = next;
        continue;
      }
      const detail = answer.text ? `: ${answer.text}` : '';
      if (status >= 300 && status < 400)
        return failed(`HTTP ${status} redirect not followed (only same-origin 307/308 are)`, false);
      const retryable = status >= 500 || RETRYABLE_4XX.has(status);
      return failed(`HTTP ${status}${detail}`, retryable);
    }
  }

  private post(
    url: URL,
    headers: Record<string, string>,
    body: Buffer,
    signal: AbortSignal,
  ): Promise<{ status: number; location: string | undefined; text: string }> {
    const secure = url.protocol === 'https:';
    const request = secure ? https.request : http.request;
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method: 'POST',
          headers,
          agent: secure ? this.agents.https : this.agents.http,
          signal,
          lookup: this.guard.lookup,
        },
        (res) => {
          const status = res.statusCode ?? 0;
          const location = res.headers.location;
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            if (text.length < ERROR_BODY_CHARS) text += chunk.slice(0, ERROR_BODY_CHARS - text.length);
          });
          res.on('end', () => resolve({ status, location, text: status >= 300 ? text.trim() : '' }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}
