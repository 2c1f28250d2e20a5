/** stats, stats-job and stats-tube: beanstalkd's fields from delayq's counts and this process's counters. */
import { hostname, release, machine, type } from 'node:os';
import { NOT_FOUND, okYaml, type Reply } from './replies.js';
import { CLIENT_GONE_REASON, type ConnectionState as Connection } from './connection-state.js';
import { priFromPriority, priorityFromPri, secondsFrom } from './job-codec.js';
import { yamlMap } from './yaml.js';
import type { HistoryEntry, Job, TopicStats } from '../core/job.js';
import { isLapseReason } from '../timer/reaper.js';
import { deadlineSoon } from './job-commands.js';

const STATE_NAMES: Record<string, string> = {
  ready: 'ready',
  delayed: 'delayed',
  reserved: 'reserved',
  dead: 'buried',
};
const VERSION = 'delayq (beanstalkd 1.12 protocol)';
/** beanstalkd's URGENT_THRESHOLD: a ready job with a pri below it is urgent (current-jobs-urgent). */
const URGENT_BELOW = priorityFromPri(1024);

/** A tube's urgent jobs; no store call when it has no ready job. */
function urgentOf(conn: Connection, topic: TopicStats): Promise<number> {
  return topic.counts.ready > 0 ? conn.ctx.service.topics.countReady(topic.topic, URGENT_BELOW) : Promise.resolve(0);
}

/**
 * beanstalkd's `delay`: the one the job was last given, by its put or by its last release (0 when it made
 * the job ready), not changed by a TTR lapse. delayq keeps the due time, so the delay is read back from the
 * history: from the put or release that made the job delayed to when it came due (its promotion, or its due
 * time while it waits).
 */
function delaySeconds(job: Job, history: readonly HistoryEntry[]): number {
  const at = history.findLastIndex((h) => h.event === 'push' || h.event === 'release');
  const given = history[at];
  if (!given) return secondsFrom(job.runAt - job.createdAt);
  if (given.state !== 'delayed') return 0;
  const promoted = history.slice(at + 1).find((h) => h.event === 'promote');
  const dueAt = promoted ? promoted.at : job.runAt;
  return Math.max(0, Math.round((dueAt - given.at) / 1000));
}

export async function statsJob(conn: Connection, number: number): Promise<Reply> {
  const { service, numbers } = conn.ctx;
  const id = await numbers.idOf(number);
  if (id === null) return NOT_FOUND;
  const job = await service.get(id).catch(() => null);
  if (!job || !STATE_NAMES[job.state]) return NOT_FOUND;
  const history = await service.history(id);
  const events = (name: string): number => history.filter((h) => h.event === name).length;
  const now = service.clock.now();
  const timeLeft =
    job.state === 'reserved' ? (job.deadlineAt ?? now) - now : job.state === 'delayed' ? job.runAt - now : 0;
  return okYaml(
    yamlMap({
      id: number,
      tube: job.topic,
      state: STATE_NAMES[job.state]!,
      pri: priFromPriority(job.priority),
      age: Math.floor((now - job.createdAt) / 1000),
      delay: delaySeconds(job, history),
      ttr: secondsFrom(job.ttrMs),
      'time-left': Math.floor(Math.max(0, timeLeft) / 1000),
      file: 0,
      reserves: events('reserve'),
      timeouts: history.filter((h) => h.event === 'retry' && isLapseReason(h.reason)).length,
      releases: history.filter((h) => h.event === 'release' && h.reason !== CLIENT_GONE_REASON).length,
      buries: events('bury'),
      // A kick is a redrive (a buried job) or a reschedule to now (a delayed one).
      kicks: history.filter((h) => h.event === 'redrive' || (h.event === 'reschedule' && h.state === 'ready')).length,
    }),
  );
}

export async function statsTube(conn: Connection, tube: string): Promise<Reply> {
  const { ctx } = conn;
  const topics = await ctx.service.topics.stats();
  if (!ctx.liveTubes(topics).has(tube)) return NOT_FOUND;
  const topic = topics.find((s) => s.topic === tube);
  const connections = [...ctx.connections];
  const using = connections.filter((c) => c.used === tube).length;
  const watching = connections.filter((c) => c.watched.includes(tube)).length;
  const counts = topic?.counts;
  const local = ctx.tubes.get(tube);
  const urgent = topic ? await urgentOf(conn, topic) : 0;
  const now = ctx.service.clock.now();
  return okYaml(
    yamlMap({
      name: tube,
      'current-jobs-urgent': urgent,
      'current-jobs-ready': counts?.ready ?? 0,
      'current-jobs-reserved': counts?.reserved ?? 0,
      'current-jobs-delayed': counts?.delayed ?? 0,
      'current-jobs-buried': counts?.dead ?? 0,
      'total-jobs': counts ? Object.values(counts).reduce((a, b) => a + b, 0) : 0,
      'current-using': using,
      'current-watching': watching,
      'current-waiting': connections.filter((c) => c.isWaiting && c.watched.includes(tube)).length,
      'cmd-delete': local?.deletes ?? 0,
      'cmd-pause-tube': local?.pauses ?? 0,
      pause: topic?.paused ? (local?.pauseSeconds ?? 0) : 0,
      'pause-time-left': topic?.paused && topic.pausedUntil !== null ? secondsFrom(topic.pausedUntil - now) : 0,
    }),
  );
}

export async function stats(conn: Connection): Promise<Reply> {
  const { ctx } = conn;
  // beanstalkd counts a timeout when the TTR passes; the listener notes its held jobs' lapses lazily, so it
  // looks at every connection's before answering.
  const now = ctx.service.clock.now();
  for (const c of ctx.connections) deadlineSoon(c as Connection, now);
  const topics = await ctx.service.topics.stats();
  const sum = (state: 'ready' | 'reserved' | 'delayed' | 'dead'): number =>
    topics.reduce((a, t) => a + t.counts[state], 0);
  const urgent = (await Promise.all(topics.map((t) => urgentOf(conn, t)))).reduce((a, b) => a + b, 0);
  const cmd = (name: string): number => ctx.commands.get(name) ?? 0;
  const connections = [...ctx.connections];
  const cpu = process.resourceUsage();
  return okYaml(
    yamlMap({
      'current-jobs-urgent': urgent,
      'current-jobs-ready': sum('ready'),
      'current-jobs-reserved': sum('reserved'),
      'current-jobs-delayed': sum('delayed'),
      'current-jobs-buried': sum('dead'),
      ...Object.fromEntries(
        [
          'put',
          'peek',
          'peek-ready',
          'peek-delayed',
          'peek-buried',
          'reserve',
          'reserve-with-timeout',
          'delete',
          'release',
          'use',
          'watch',
          'ignore',
          'bury',
          'kick',
          'touch',
          'stats',
          'stats-job',
          'stats-tube',
          'list-tubes',
          'list-tube-used',
          'list-tubes-watched',
          'pause-tube',
        ].map((name) => [`cmd-${name}`, cmd(name)]),
      ),
      'job-timeouts': ctx.jobTimeouts,
      'total-jobs': ctx.totalJobs,
      'max-job-size': ctx.maxJobSize,
      'current-tubes': ctx.liveTubes(topics).size,
      'current-connections': connections.length,
      'current-producers': connections.filter((c) => c.isProducer).length,
      'current-workers': connections.filter((c) => c.isWorker).length,
      'current-waiting': connections.filter((c) => c.isWaiting).length,
      'total-connections': ctx.totalConnections,
      pid: process.pid,
      version: VERSION,
      'rusage-utime': Number((cpu.userCPUTime / 1e6).toFixed(6)),
      'rusage-stime': Number((cpu.systemCPUTime / 1e6).toFixed(6)),
      uptime: Math.floor((Date.now() - ctx.startedAt) / 1000),
      'binlog-oldest-index': 0,
      'binlog-current-index': 0,
      'binlog-records-migrated': 0,
      'binlog-records-written': 0,
      'binlog-max-size': 0,
      draining: !ctx.service.isOpen,
      id: ctx.serverId,
      hostname: hostname(),
      os: `${type()} ${release()}`,
      platform: machine(),
    }),
  );
}
