/**
 * The failover scenario shared by the topologies: groups of delayq processes (each group one store setup:
 * no journal, PostgreSQL or MariaDB journal) run side by side on one replicated Redis, each under its own
 * chaos load (pushes, cancels, reservations, finishes, fails, abandoned reservations), while a list of
 * faults hits Redis or the journal database. Then each group drains and its history is checked.
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { checkHistory, serviceGaps, type HistoryEvent } from './history-checker.js';
import {
  CHAOS_ROOT,
  ServerProcess,
  sleep,
  startConsumer,
  startProducer,
  waitUntil,
  type ChaosChild,
} from './chaos-processes.js';
import type { ChaosServerSpec } from './chaos-server.js';
import type { OwnDatabase } from './chaos-databases.js';
import { historyOf } from './kill-loop.js';
import { getJson } from './chaos-http.js';
import { detectionByFault, lossNotices, type LossNotice } from './failover-detection.js';

export interface Fault {
  name: string;
  /** Injects the fault and returns once the topology is whole again (failed over, the lost node back). */
  run: () => Promise<void>;
}

export interface GroupSpec {
  /** 'none', or the journal's own database. */
  journal: OwnDatabase | null;
  servers: number;
  /** Where the group's delayq ports are looked for (the first free ones from here up to 7699). */
  port: number;
}

export interface LoadSpec {
  ratePerSec: number;
  delayMaxMs: number;
  ttrMs: number;
  /** Load before each fault, ms. */
  loadMs: number;
}

export interface FaultWindow {
  name: string;
  at: number;
  /** How long the fault and the topology's repair took, ms. */
  tookMs: number;
}

export interface GroupReport {
  name: string;
  servers: number;
  acked: number;
  cancelled: number;
  delivered: number;
  /** Acknowledged, not cancelled, never delivered. */
  lost: string[];
  /** Acknowledged, not cancelled, not finished at the end of the drain (includes `lost`). */
  unfinished: string[];
  early: number;
  /** Deliveries while an earlier reservation of the job was within its TTR and not failed. */
  overlapping: string[];
  deliveredAfterFinish: string[];
  resurrectedAfterCancel: string[];
  redeliveries: number;
  pushFailures: number;
  /** Push answers other than 2xx and 503 (a bug: a fault must look like unavailability, not bad input). */
  pushOddAnswers: string[];
  /** Long polls the server did not answer within the consumer's bound (60 s). */
  pollStuck: number;
  /** The slowest long poll answered (waitMs 1 s), ms. */
  slowestPollMs: number;
  pushGapMs: number;
  deliveryGapMs: number;
  /** Per fault: from its start to the last failed push or poll it caused, ms (0: none failed). */
  recoveryMs: Record<string, number>;
  /** Unfinished jobs by the fault window their push was acknowledged in. */
  lostByFault: Record<string, number>;
  /** storeResets of /ready, summed over the group's processes. */
  storeResets: number;
  /** storeWriteLosses of /ready, summed over the group's processes: failovers delayq noticed losing writes. */
  storeWriteLosses: number;
  /** The write-loss errors the group's processes logged. */
  lossNotices: LossNotice[];
  /** Per fault: ms from its start to the first write-loss notice after it (absent: none came). */
  detectedMs: Record<string, number>;
  drainMs: number;
}

const journalName = (db: OwnDatabase | null): string => (db ? db.dialect : 'none');

interface Group {
  name: string;
  prefix: string;
  servers: ServerProcess[];
  producer?: ChaosChild;
  consumer?: ChaosChild;
}

/** A port of the suite's range nobody listens on now, from `from` up (a leftover or a stranger may hold one). */
async function freePort(from: number, taken: Set<number>): Promise<number> {
  for (let port = from; port <= 7699; port++) {
    if (taken.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) {
      taken.add(port);
      return port;
    }
  }
  throw new Error(`no free port in ${from}–7699`);
}

const takenPorts = new Set<number>();

async function openGroup(spec: GroupSpec, redisUrl: string, topology: string): Promise<Group> {
  const prefix = `fo${randomBytes(3).toString('hex')}`;
  const name = `${topology}/${journalName(spec.journal)}`;
  let journalSpec: Partial<ChaosServerSpec> = {};
  if (spec.journal) {
    await spec.journal.createJournalPlace(`dq_${prefix}`);
    journalSpec =
      spec.journal.dialect === 'postgres'
        ? { store: 'redis+postgres', pgUrl: spec.journal.url(), pgSchema: `dq_${prefix}` }
        : { store: 'redis+mysql', mysqlUri: spec.journal.url(`dq_${prefix}`) };
  }
  const ports: number[] = [];
  for (let k = 0; k < spec.servers; k++) ports.push(await freePort(spec.port + k, takenPorts));
  const servers = ports.map(
    (port, k) =>
      new ServerProcess({
        port,
        nodeId: `${prefix}-${k}`,
        store: 'redis',
        redisUrl,
        redisPrefix: prefix,
        loaderIntervalMs: 300,
        reconcileSettleMs: 1000,
        ...journalSpec,
      }),
  );
  return { name, prefix, servers };
}

export async function runFailover(options: {
  topology: string;
  redisUrl: string;
  groups: GroupSpec[];
  faults: Fault[];
  load: LoadSpec;
}): Promise<{ reports: GroupReport[]; faults: FaultWindow[] }> {
  const { load } = options;
  const groups: Group[] = [];
  for (const g of options.groups) groups.push(await openGroup(g, options.redisUrl, options.topology)); // one at a time: ports
  const windows: FaultWindow[] = [];
  try {
    for (const g of groups) {
      for (const [k, s] of g.servers.entries()) {
        await s.start(90_000);
        const log = join(CHAOS_ROOT, `failover-stderr-${g.prefix}-${k}.txt`);
        writeFileSync(log, s.child!.stderr);
        s.child!.process.stderr!.on('data', (d: Buffer) => appendFileSync(log, d));
      }
    }
    for (const g of groups) {
      const urls = g.servers.map((s) => s.url);
      const topic = `chaos.${g.prefix}`;
      const { ratePerSec, delayMaxMs, ttrMs } = load;
      g.producer = startProducer({ urls, prefix: g.prefix, topic, ratePerSec, delayMaxMs, ttrMs, cancelEvery: 17 });
      g.consumer = startConsumer({ urls, topic, loops: 2 * urls.length, failEvery: 23, abandonEvery: 41 });
    }
    // the faults start once every group's load runs (children take seconds to start on a loaded host)
    for (const g of groups) {
      await waitUntil(
        `${g.name}: load running`,
        () =>
          g.producer!.events.some((e) => e['type'] === 'push') &&
          g.consumer!.events.some((e) => e['type'] === 'deliver'),
        60_000,
        100,
      );
    }
    for (const fault of options.faults) {
      await sleep(load.loadMs);
      const at = Date.now();
      await fault.run();
      windows.push({ name: fault.name, at, tookMs: Date.now() - at });
    }
    await sleep(load.loadMs);
    return { reports: await Promise.all(groups.map((g) => finish(g, load, windows))), faults: windows };
  } finally {
    for (const g of groups) {
      await g.producer?.stop();
      await g.consumer?.stop();
      await Promise.all(g.servers.map((s) => s.stop()));
    }
  }
}

async function jobState(servers: ServerProcess[], id: string): Promise<string | null> {
  for (const s of servers) {
    try {
      const res = await getJson(`${s.url}/v1/jobs/${encodeURIComponent(id)}`, 3000);
      if (res.status === 200) return (res.json as { job: { state: string } }).job.state;
      if (res.status === 404) return null;
    } catch {
      /* the next server */
    }
  }
  return null;
}

/** Stops the producer, drains (until every open job finished, or no progress for a while), checks. */
async function finish(g: Group, load: LoadSpec, faults: FaultWindow[]): Promise<GroupReport> {
  const producer = g.producer!;
  const consumer = g.consumer!;
  await producer.stop();
  const ids = (c: ChaosChild, type: string) =>
    new Set(c.events.filter((e) => e['type'] === type).map((e) => e['id'] as string));
  const pushed = ids(producer, 'push');
  const cancelled = ids(producer, 'cancel');
  const finishedPerServer = new Set<string>();
  const confirmed: HistoryEvent[] = [];
  const open = (): string[] => {
    const finished = ids(consumer, 'finish');
    return [...pushed].filter((id) => !cancelled.has(id) && !finished.has(id) && !finishedPerServer.has(id));
  };
  const drainStart = Date.now();
  let best = Infinity;
  let progressAt = Date.now();
  const stallMs = load.ttrMs * 3 + 5000;
  await waitUntil(
    `${g.name}: every acknowledged job finished, or no progress for ${stallMs} ms`,
    async () => {
      // a finish whose answer was lost: only the server knows
      for (const id of open().slice(0, 50)) {
        if ((await jobState(g.servers, id)) === 'finished') {
          finishedPerServer.add(id);
          confirmed.push({ type: 'finish', id, at: Date.now() });
        }
      }
      const left = open().length;
      if (left < best) [best, progressAt] = [left, Date.now()];
      return left === 0 || Date.now() - progressAt > stallMs;
    },
    load.delayMaxMs + stallMs * 6 + 60_000,
    250,
  );
  const drainMs = Date.now() - drainStart;
  await consumer.stop();
  // a cancel whose answer was lost (timeout, 503) may have committed: a job the server shows cancelled is not lost
  const cancelTried = new Set(
    producer.events.filter((e) => String(e['type']).startsWith('cancel')).map((e) => e['id'] as string),
  );
  const postMortem: string[] = [];
  for (const id of open()) {
    const state = await jobState(g.servers, id);
    if (state === 'cancelled' && cancelTried.has(id)) cancelled.add(id);
    else postMortem.push(`${id} ${state}`);
  }
  writeFileSync(join(CHAOS_ROOT, `failover-unfinished-${g.prefix}.txt`), postMortem.join('\n'));
  const unfinished = open();
  const events = [...historyOf([producer, consumer]), ...confirmed];
  writeFileSync(
    join(CHAOS_ROOT, `failover-history-${g.prefix}.jsonl`),
    [...producer.events, ...consumer.events, ...faults.map((f) => ({ type: 'fault', ...f }))]
      .map((e) => JSON.stringify(e))
      .join('\n'),
  );
  // Only a finish the consumer got a 200 for is acknowledged: one inferred from a GET may have reached Redis and
  // not the journal (the finish then failed), and a failover may undo it; the drain counts it as done all the same.
  const acknowledged = historyOf([producer, consumer]).filter(
    (e) => e.type !== 'finish' || !(e as { inferred?: boolean }).inferred,
  );
  const result = checkHistory(acknowledged, { endAt: Date.now(), graceMs: load.ttrMs * 3 + 2000, ttrSlackMs: 100 });
  const gaps = serviceGaps(events);
  const failures = [...producer.events, ...consumer.events].filter(
    (e) =>
      e['type'] === 'push-error' ||
      (e['type'] === 'push-refused' && e['status'] === 503) ||
      e['type'] === 'poll-refused' ||
      e['type'] === 'poll-error' ||
      e['type'] === 'poll-stuck',
  );
  const recoveryMs: Record<string, number> = {};
  faults.forEach((f, i) => {
    const until = faults[i + 1]?.at ?? Infinity;
    const last = failures.filter((e) => e['at'] >= f.at && e['at'] < until).map((e) => e['at'] as number);
    recoveryMs[`${i + 1}:${f.name}`] = last.length ? Math.max(...last) - f.at : 0;
  });
  // which fault window each unfinished job's push was acknowledged in ('before' the first fault)
  const lostByFault: Record<string, number> = {};
  for (const id of unfinished) {
    const at = producer.events.find((e) => e['type'] === 'push' && e['id'] === id)!['at'] as number;
    const i = faults.findLastIndex((f) => f.at <= at);
    const key = i < 0 ? 'before' : `${i + 1}:${faults[i]!.name}`;
    lostByFault[key] = (lostByFault[key] ?? 0) + 1;
  }
  let [storeResets, storeWriteLosses] = [0, 0];
  for (const s of g.servers) {
    const ready = await getJson(`${s.url}/ready`, 5000).catch(() => null);
    const body = ready?.json as { storeResets?: number; storeWriteLosses?: number } | null;
    storeResets += body?.storeResets ?? 0;
    storeWriteLosses += body?.storeWriteLosses ?? 0;
  }
  const notices = lossNotices(g.servers.map((_, k) => join(CHAOS_ROOT, `failover-stderr-${g.prefix}-${k}.txt`)));
  return {
    name: g.name,
    servers: g.servers.length,
    acked: pushed.size,
    cancelled: cancelled.size,
    delivered: result.delivered,
    lost: result.lost.filter((id) => !cancelled.has(id)),
    unfinished,
    early: result.early.length,
    overlapping: result.duplicates,
    deliveredAfterFinish: result.deliveredAfterFinish,
    resurrectedAfterCancel: result.resurrectedAfterCancel,
    redeliveries: result.redeliveries,
    pushFailures: producer.events.filter((e) => e['type'] === 'push-error' || e['type'] === 'push-refused').length,
    pushOddAnswers: producer.events
      .filter((e) => e['type'] === 'push-refused' && e['status'] !== 503)
      .map((e) => `${e['status']} ${e['code']}`),
    pollStuck: consumer.events.filter((e) => e['type'] === 'poll-stuck').length,
    slowestPollMs: Math.max(
      0,
      ...consumer.events.filter((e) => e['type'] === 'poll-slow').map((e) => e['ms'] as number),
    ),
    pushGapMs: gaps.pushGapMs,
    deliveryGapMs: gaps.deliveryGapMs,
    recoveryMs,
    lostByFault,
    storeResets,
    storeWriteLosses,
    lossNotices: notices,
    detectedMs: detectionByFault(notices, faults),
    drainMs,
  };
}

/** One line for RELIABILITY.md and the test log. */
export function summarizeGroup(r: GroupReport): string {
  return (
    `${r.name} ×${r.servers}: acked=${r.acked} cancelled=${r.cancelled} delivered=${r.delivered} lost=${r.lost.length} ` +
    `unfinished=${r.unfinished.length} early=${r.early} overlapping=${r.overlapping.length} ` +
    `deliveredAfterFinish=${r.deliveredAfterFinish.length} resurrectedAfterCancel=${r.resurrectedAfterCancel.length} ` +
    `redeliveries=${r.redeliveries} pushFailures=${r.pushFailures} pollStuck=${r.pollStuck} slowestPollMs=${r.slowestPollMs} ` +
    `pushGapMs=${r.pushGapMs} deliveryGapMs=${r.deliveryGapMs} storeResets=${r.storeResets} drainMs=${r.drainMs} ` +
    `recoveryMs=${JSON.stringify(r.recoveryMs)} lostByFault=${JSON.stringify(r.lostByFault)} ` +
    `storeWriteLosses=${r.storeWriteLosses} detectedMs=${JSON.stringify(r.detectedMs)} ` +
    `lossNotices=${JSON.stringify(r.lossNotices.map((n) => [n.server, n.shard, n.lostBytes, n.writesAtMost]))}`
  );
}
