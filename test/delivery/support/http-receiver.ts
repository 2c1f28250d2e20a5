import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  at: number;
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Handler = (req: ReceivedRequest, res: http.ServerResponse, index: number) => void;

/** A real HTTP server on 127.0.0.1:0 that records what it is sent; `handler` decides the answer. */
export class HttpReceiver {
  readonly requests: ReceivedRequest[] = [];
  connections = 0;
  /** Requests being handled right now, and the most at once. */
  active = 0;
  maxActive = 0;
  handler: Handler = (_req, res) => res.writeHead(204).end();
  private readonly server: http.Server;
  private readonly open = new Set<http.ServerResponse>();

  constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const record: ReceivedRequest = {
          at: Date.now(),
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        this.requests.push(record);
        this.active++;
        this.maxActive = Math.max(this.maxActive, this.active);
        this.open.add(res);
        res.on('close', () => {
          this.active--;
          this.open.delete(res);
        });
        this.handler(record, res, this.requests.length - 1);
      });
    });
    this.server.on('connection', () => this.connections++);
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async close(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
