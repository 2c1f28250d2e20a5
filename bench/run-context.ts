// What bench/run.ts hands each scenario module: the run's counts, where to record a value (under the current
// round), how to open a round (the host's load recorded around it) and run subjects in its rotated order, and
// how to record where a measurement's CPU went.
import type { Subject } from './subject.js';

export type Add = (scenario: string, subject: string, metric: string, value: number | undefined) => void;
export type InRound = (
  scenario: string,
  run: number,
  line: string,
  fn: (order: string[]) => Promise<void>,
) => Promise<void>;

export interface RunContext {
  quick: boolean;
  runs: number;
  /** The counts of each scenario (options.ts). */
  mode: Record<string, number>;
  /** The benchmark's own redis-server. */
  redisPort: number;
  add: Add;
  /** A measurement that failed: listed at the top of the page, and the command exits 1. */
  failures: string[];
  inRound: InRound;
  /** Each subject of `keys` (those --systems allows) through `fn`, opened and closed, in this round's order. */
  each(keys: readonly string[], run: number, fn: (key: string, s: Subject) => Promise<void>): Promise<void>;
  /** Runs `fn` and records the CPU per job of this process, the server and Redis, and Redis commands per job. */
  profiled(scenario: string, s: Subject, jobs: number, fn: () => Promise<void>): Promise<Profile>;
  log(line: string): void;
}

/** Commands the benchmark itself sends (INFO, CONFIG, FLUSHALL, PING) are not the system's work. */
const OWN_COMMANDS = new Set(['info', 'config', 'flushall', 'ping']);

/** Per job: CPU of the benchmark process (and the subject's own client processes), of the server and of Redis, µs; Redis commands. */
export interface Profile {
  clientUs: number;
  serverUs: number | undefined;
  redisUs: number | undefined;
  cmds: number | undefined;
}

export type CommandCalls = Map<string, { calls: number; usec: number }>;

/** Redis commands run between two INFO commandstats readings, the benchmark's own left out. */
export function commandsBetween(before: CommandCalls, after: CommandCalls): number {
  let calls = 0;
  for (const [name, c] of after) {
    if (OWN_COMMANDS.has(name)) continue;
    calls += c.calls - (before.get(name)?.calls ?? 0);
  }
  return calls;
}

/** `profiled` of RunContext, recording through `add`. */
export function profiler(add: Add): RunContext['profiled'] {
  return async (scenario, s, jobs, fn) => {
    const cpu0 = process.cpuUsage();
    const external0 = s.clientCpuMs?.() ?? 0;
    const server0 = await s.serverCpuMs();
    const redis0 = await s.redisCpuMs?.();
    const calls0 = await s.commandCalls?.();
    await fn();
    const cpu = process.cpuUsage(cpu0);
    const external = (s.clientCpuMs?.() ?? 0) - external0;
    const server1 = await s.serverCpuMs();
    const redis1 = await s.redisCpuMs?.();
    const calls1 = await s.commandCalls?.();
    const profile: Profile = {
      clientUs: (cpu.user + cpu.system + external * 1000) / jobs,
      serverUs: server0 !== undefined && server1 !== undefined ? ((server1 - server0) * 1000) / jobs : undefined,
      redisUs: redis0 !== undefined && redis1 !== undefined ? ((redis1 - redis0) * 1000) / jobs : undefined,
      cmds: calls0 && calls1 ? commandsBetween(calls0, calls1) / jobs : undefined,
    };
    for (const [metric, value] of Object.entries(profile)) add(scenario, s.name, metric, value);
    return profile;
  };
}
