import { describe, expect, it } from 'vitest';
import { startSecureServer } from '../security/support/secure-server.js';
import { routeTable } from '../security/support/route-table.js';
import { runHttpFuzz } from './http-fuzzer.js';
import { GENERATED_ROUTES } from './request-generator.js';

/**
 * The short form of the HTTP fuzz (the long form, 100k requests: `npm run fuzz:http`, see RELIABILITY.md).
 * DELAYQ_FUZZ_SEED / DELAYQ_FUZZ_REQUESTS change the seed and the count.
 */
const seed = Number(process.env['DELAYQ_FUZZ_SEED'] ?? 20261122);
const requests = Number(process.env['DELAYQ_FUZZ_REQUESTS'] ?? 3000);

describe('HTTP fuzz (short form)', () => {
  it('generates requests for every route of the route table (the static docs and console pages aside)', async () => {
    const server = await startSecureServer(7341);
    try {
      const table = routeTable(server.app)
        .filter((r) => r.method !== 'HEAD' && !r.url.startsWith('/docs') && !r.url.startsWith('/console'))
        .map((r) => `${r.method} ${r.url}`);
      expect(new Set(GENERATED_ROUTES())).toEqual(new Set(table));
    } finally {
      await server.close();
    }
  });

  it(`answers ${requests} hostile requests without a 5xx, a crash, a silent drop or an unexplained 4xx`, async () => {
    const report = await runHttpFuzz({ port: 7340, requests, seed, maxDurationMs: 60_000 });
    const findings = {
      serverErrors: report.serverErrors,
      uncoded4xx: report.uncoded4xx,
      unanswered: report.unanswered,
      serverLogErrors: report.serverLogErrors,
    };
    expect(findings).toEqual({ serverErrors: [], uncoded4xx: [], unanswered: [], serverLogErrors: [] });
    expect(report.crashed).toBe(false);
    expect(report.healthyAfter).toBe(true);
    expect(report.stoppedEarly).toBe(false);
    expect(report.sent).toBe(requests);
    // The mix reached both sides: accepted work and refusals of every kind.
    expect(report.byStatus['2xx']).toBeGreaterThan(requests / 10);
    expect(report.byStatus['4xx']).toBeGreaterThan(requests / 10);
    for (const kind of [
      'malformed-json',
      'oversized',
      'wrong-type',
      'unicode',
      'boundary-number',
      'unknown-field',
      'odd-method',
      'odd-path',
      'odd-header',
      'raw-bytes',
      'deep-json',
    ]) {
      expect(report.byKind[kind], kind).toBeGreaterThan(0);
    }
  }, 120_000);
});
