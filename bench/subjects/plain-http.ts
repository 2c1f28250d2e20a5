// Plain JSON over HTTP, as a service without delayq's SDK talks to it (written from docs/api.md): Node's own
// http module with a keep-alive agent, or the global fetch (undici's default pool, keep-alive too). One
// request per call; a non-2xx answer rejects with its status and the start of its body.
import http from 'node:http';

export interface PlainHttp {
  post(path: string, body: unknown): Promise<unknown>;
  get(path: string): Promise<unknown>;
  close(): void;
}

/** node:http with one keep-alive agent (up to 256 sockets). */
export class NodeHttpClient implements PlainHttp {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  private readonly port: number;

  constructor(port: number) {
    this.port = port;
  }

  async post(path: string, body: unknown): Promise<unknown> {
    return JSON.parse(await this.request('POST', path, JSON.stringify(body)));
  }

  async get(path: string): Promise<unknown> {
    return JSON.parse(await this.request('GET', path));
  }

  /** The answer's text (not parsed), or a rejection naming a non-2xx status. */
  request(method: string, path: string, payload?: string): Promise<string> {
    const headers: Record<string, string | number> = { accept: 'application/json' };
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    return new Promise((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: this.port, path, method, agent: this.agent, headers },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => {
            if (res.statusCode !== undefined && res.statusCode < 300) resolve(text);
            else reject(new HttpStatusError(method, path, res.statusCode ?? 0, text));
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The global fetch, as a script or a serverless function calls an API; its default pool keeps connections. */
export class FetchClient implements PlainHttp {
  private readonly origin: string;

  constructor(port: number) {
    this.origin = `http://127.0.0.1:${port}`;
  }

  async post(path: string, body: unknown): Promise<unknown> {
    const res = await fetch(this.origin + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
    return answer('POST', path, res);
  }

  async get(path: string): Promise<unknown> {
    return answer('GET', path, await fetch(this.origin + path, { headers: { accept: 'application/json' } }));
  }

  close(): void {
    /* the global pool closes its idle connections itself */
  }
}

async function answer(method: string, path: string, res: Response): Promise<unknown> {
  const text = await res.text();
  if (res.status >= 300) throw new HttpStatusError(method, path, res.status, text);
  return JSON.parse(text);
}

export class HttpStatusError extends Error {
  readonly status: number;
  constructor(method: string, path: string, status: number, text: string) {
    super(`${method} ${path}: HTTP ${status} ${text.slice(0, 200)}`);
    this.status = status;
  }
}
