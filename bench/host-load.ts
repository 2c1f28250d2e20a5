// The host's load around each round of a scenario, so every figure can say what else the machine was doing:
// the load average at the round's start and end, the share of CPU the rest of the machine used in a short
// window before the round (the benchmark idle then), and the share the whole machine used during the round.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { sleep } from './lib.js';

export interface RoundLoad {
  round: number;
  /** Subjects in the order this round measured them (filled in as each is measured). */
  order: string[];
  startedAt: string;
  /** 1, 5 and 15 min load averages. */
  loadBefore: number[];
  loadAfter: number[];
  /** CPU busy % of the whole machine in the quiet window before the round (other processes only). */
  busyBeforePct: number | undefined;
  /** CPU busy % of the whole machine during the round (the benchmark included). */
  busyDuringPct: number | undefined;
}

interface CpuTimes {
  busy: number;
  total: number;
}

/** Jiffies summed over all CPUs from /proc/stat; undefined where there is none (not Linux). */
function cpuTimes(): CpuTimes | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line.split(/\s+/).slice(1).map(Number);
    const idleAll = idle! + iowait!;
    const total = user! + nice! + system! + idleAll + irq! + softirq! + steal!;
    return { busy: total - idleAll, total };
  } catch {
    return undefined;
  }
}

function busyPct(from: CpuTimes | undefined, to: CpuTimes | undefined): number | undefined {
  if (!from || !to || to.total <= from.total) return undefined;
  return (100 * (to.busy - from.busy)) / (to.total - from.total);
}

const rounded = (l: number[]) => l.map((x) => Math.round(x * 100) / 100);

/** Records a RoundLoad per (scenario, round). */
export class HostLoad {
  readonly rounds: Record<string, RoundLoad[]> = {};

  /** How long to watch the machine before each round while the benchmark does nothing. */
  private readonly quietMs: number;

  constructor(quietMs: number) {
    this.quietMs = quietMs;
  }

  /** Samples the quiet window, then opens the round's entry; `end` closes it. */
  async begin(scenario: string, round: number): Promise<{ entry: RoundLoad; end: () => void }> {
    const quiet0 = cpuTimes();
    await sleep(this.quietMs);
    const start = cpuTimes();
    const entry: RoundLoad = {
      round,
      order: [],
      startedAt: new Date().toISOString(),
      loadBefore: rounded(loadavg()),
      loadAfter: [],
      busyBeforePct: busyPct(quiet0, start),
      busyDuringPct: undefined,
    };
    (this.rounds[scenario] ??= []).push(entry);
    const end = () => {
      entry.loadAfter = rounded(loadavg());
      entry.busyDuringPct = busyPct(start, cpuTimes());
    };
    return { entry, end };
  }
}

/** The items rotated by the round: A B C, then B C A, then C A B, so no subject always goes first. */
export function rotate<T>(items: readonly T[], round: number): T[] {
  if (items.length === 0) return [];
  const k = (((round - 1) % items.length) + items.length) % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}
