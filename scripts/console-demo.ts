/**
 * A seeded demo node for the console's screenshots (scripts/console-screenshots.ts): one embedded runtime with
 * the HTTP API on a loopback port, about forty topics of an online shop with jobs in every state, dead
 * letters, reservations held, a consumer waiting, schedules (one across a DST change), and a topic bound to
 * a local webhook, and six hours of traffic behind it (console-demo-traffic.ts) with a little more every second.
 * Everything stays on loopback and in memory.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.js';
import { createRuntime, type DelayqRuntime } from '../src/runtime.js';
import { buildApp, closeGracefully, type DelayqApp } from '../src/server/app.js';
import { DemoTraffic, ReplayClock } from './console-demo-traffic.js';

const MINUTE = 60_000;
/** How far back the demo's traffic goes. */
const HISTORY_HOURS = 6;

export interface Demo {
  url: string;
  runtime: DelayqRuntime;
  /** A job id worth showing in full (retried once, with its error). */
  retriedJob: string;
  /** A finished job with a result. */
  finishedJob: string;
  close(): Promise<void>;
}

/** A webhook target on loopback that accepts every delivery. */
function startWebhook(): Promise<Server> {
  const server = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export async function startDemo(): Promise<Demo> {
  const config = loadConfig({
    env: {},
    overrides: {
      nodeId: 'shop-1',
      sqlite: { path: ':memory:' },
      metrics: { statsCacheMs: 0 },
      sinks: { refreshIntervalMs: 200 },
      schedules: { leadMs: 500, refreshIntervalMs: 200 },
    },
  });
  const clock = new ReplayClock(HISTORY_HOURS * 3_600_000);
  const runtime = createRuntime(config, { clock });
  await runtime.start();
  const app: DelayqApp = await buildApp(runtime.service, config, {
    metrics: runtime.metrics,
    sinks: runtime.sinks,
    schedules: runtime.schedules,
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const webhook = await startWebhook();
  const service = runtime.service;
  const waiting = new AbortController();
  const traffic = new DemoTraffic(service, clock);

  // Topics: a shop's jobs, each topic its own size and spread of due times, pushed when the replayed hours begin.
  const areas = ['orders', 'payments', 'mail', 'sms', 'invoices', 'carts', 'reviews', 'stock'];
  const kinds = ['close', 'remind', 'retry', 'expire', 'notify'];
  const jobs = [];
  let n = 0;
  for (const [a, area] of areas.entries()) {
    for (const [k, kind] of kinds.entries()) {
      const topic = `${area}.${kind}`;
      const count = 3 + ((a * 7 + k * 13) % 40);
      for (let i = 0; i < count; i++) {
        n++;
        jobs.push({
          topic,
          id: `${area}-${kind}-${i}`,
          bizKey: `order-${1000 + (n % 60)}`,
          tag: kind,
          delayMs: clock.behind + ((n * 7919) % 720) * MINUTE + ((n * 104_729) % 60_000),
          body: { order: 1000 + (n % 60), step: kind },
        });
      }
    }
  }
  for (let i = 0; i < jobs.length; i += 1000) await service.pushBatch(jobs.slice(i, i + 1000));
  await traffic.replay();

  // Jobs due soon, for the histogram's first hour.
  const soon = Array.from({ length: 60 }, (_, i) => ({
    topic: 'orders.close',
    id: `close-soon-${i}`,
    bizKey: `order-${2000 + i}`,
    delayMs: (2 + ((i * 37) % 50)) * MINUTE,
    body: { order: 2000 + i },
  }));
  await service.pushBatch(soon);

  // Dead letters: payments whose card was declined three times.
  for (let i = 0; i < 4; i++) {
    await service.push({
      topic: 'payments.capture',
      id: `capture-${i}`,
      bizKey: `order-${3000 + i}`,
      retry: { maxAttempts: 1 },
    });
    const [r] = await service.reserve({ topics: ['payments.capture'] });
    await service.fail(r!.job.id, r!.token, { error: { message: 'card declined', code: 'DECLINED' } });
  }

  // A job retried once: its page shows the error, the retry policy and the next attempt.
  const retriedJob = 'refund-7731';
  await service.push({
    topic: 'payments.refund',
    id: retriedJob,
    bizKey: 'order-7731',
    priority: 5,
    ttrMs: '30s',
    ttlMs: '6h',
    retry: { maxAttempts: 5, backoff: { type: 'exponential', delayMs: '1m', factor: 2, maxDelayMs: '1h' } },
    body: { order: 7731, amount: 42.5, currency: 'EUR' },
  });
  const [refund] = await service.reserve({ topics: ['payments.refund'] });
  await service.fail(refund!.job.id, refund!.token, {
    error: { message: 'PSP timeout after 30 s', code: 'PSP_TIMEOUT' },
  });

  const finishedJob = 'invoice-5520';
  await service.push({ topic: 'invoices.send', id: finishedJob, bizKey: 'order-5520', body: { order: 5520 } });
  const [invoice] = await service.reserve({ topics: ['invoices.send'] });
  await service.finish(invoice!.job.id, invoice!.token, { sent: true, to: 'billing@example.com', pages: 2 });

  // Reservations held by a worker, and a consumer waiting on two topics.
  await service.pushBatch(
    Array.from({ length: 5 }, (_, i) => ({ topic: 'stock.sync', id: `sync-${i}`, body: { sku: 100 + i } })),
  );
  await service.reserve({ topics: ['stock.sync'], count: 5, ttrMs: 10 * MINUTE });
  void service.reserve({ topics: ['sms.send', 'mail.send'], waitMs: 60_000 }, waiting.signal, {
    remote: '10.0.4.17:51844',
  });

  // Schedules: a nightly report in Berlin (its next fires cross the spring change when it is near), a heartbeat.
  await runtime.schedules.put('nightly-report', {
    topic: 'reports.nightly',
    cron: '0 30 2 * * *',
    timeZone: 'Europe/Berlin',
    job: { body: { report: 'sales' } },
  });
  await runtime.schedules.put('heartbeat', { topic: 'ops.heartbeat', everyMs: 1000, job: { body: 'beat' } });
  await runtime.sinks.setBinding('orders.notify', {
    type: 'webhook',
    name: 'crm-hook',
    url: `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/hooks/delayq`,
    allowedRanges: ['loopback'],
  });
  await service.topics.pause('reviews.expire');
  traffic.startLive();

  return {
    url,
    runtime,
    retriedJob,
    finishedJob,
    async close() {
      await traffic.stop();
      waiting.abort();
      await closeGracefully(app, runtime, 100);
      await new Promise((resolve) => webhook.close(resolve));
    },
  };
}
