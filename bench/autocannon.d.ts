// Minimal types for the parts of autocannon 9 the benchmarks use (the package ships none).
declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
      onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
    }
    interface Options extends Request {
      url: string;
      connections?: number;
      duration?: number;
      requests?: Request[];
    }
    interface Histogram {
      average: number;
      p50: number;
      p99: number;
    }
    interface Result {
      requests: Histogram & { total: number };
      latency: Histogram;
      errors: number;
      non2xx: number;
    }
  }
  function autocannon(
    options: autocannon.Options,
    callback: (err: Error | null, result: autocannon.Result) => void,
  ): unknown;
  export default autocannon;
}
