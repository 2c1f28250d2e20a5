/**
 * Setup file (vitest.config.ts): a test must not leave a server, a child process, a worker thread or a
 * timer running.
 * - Servers, processes, threads: before each test the process's active handles of those kinds are counted
 *   (process.getActiveResourcesInfo()); after the test and its own afterEach hooks (setup hooks run first
 *   before and last after) the counts must be back, else that test fails.
 * - Timers: every ref'd setTimeout/setInterval made while the file runs is noted with the test that made it.
 *   A service opened in beforeAll legitimately re-arms its timers during each test, so timers are checked
 *   once the file's own afterAll hooks have closed everything: any still running fails the file, naming the
 *   tests that created them. (vitest's own timers are not seen: it keeps the original functions.)
 * Closing is often asynchronous, so each check waits on the handles themselves, up to LEAK_GRACE_MS.
 * LEAK_CHECK_STACKS=1 names each leftover timer by the stack that made it.
 */
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';

/** The handle kinds a forgotten server, child process or worker thread leaves behind. */
const WATCHED = new Set(['TCPServerWrap', 'PipeServerWrap', 'UDPWrap', 'ProcessWrap', 'Worker']);
/** Long enough for a close to settle on a loaded machine; a real leak never settles. */
const LEAK_GRACE_MS = 3000;

type Timer = NodeJS.Timeout & { _destroyed?: boolean };
interface TimerRegistry {
  timers: Map<Timer, string>;
  label: string;
  pause: typeof setTimeout;
}

// Patched once per worker process (setup files run again for every test file in the same process).
const KEY = Symbol.for('delayq.test.timer-registry');
const holder = globalThis as { [KEY]?: TimerRegistry };
const registry: TimerRegistry = (holder[KEY] ??= (() => {
  const reg: TimerRegistry = { timers: new Map(), label: 'file setup', pause: globalThis.setTimeout };
  for (const name of ['setTimeout', 'setInterval'] as const) {
    const original = globalThis[name] as (...args: unknown[]) => Timer;
    globalThis[name] = Object.assign((...args: unknown[]) => {
      const timer = original(...args);
      reg.timers.set(timer, process.env['LEAK_CHECK_STACKS'] ? `${reg.label}: ${new Error().stack}` : reg.label);
      return timer;
    }, original) as never;
  }
  return reg;
})());

const running = (t: Timer) => !t._destroyed && t.hasRef();

function watchedCounts(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) {
    if (WATCHED.has(kind)) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return counts;
}

function extraHandles(before: Map<string, number>): string[] {
  return [...watchedCounts()]
    .filter(([kind, n]) => n > (before.get(kind) ?? 0))
    .map(([kind, n]) => `${kind} ×${n - (before.get(kind) ?? 0)}`);
}

function runningTimers(): string[] {
  const byLabel = new Map<string, number>();
  for (const [timer, label] of registry.timers) {
    if (running(timer)) byLabel.set(label, (byLabel.get(label) ?? 0) + 1);
    else registry.timers.delete(timer);
  }
  return [...byLabel].map(([label, n]) => `timer ×${n} made in "${label}"`);
}

/** Polls `left` until it is empty or the grace has passed; answers what is still left. */
async function settle(left: () => string[]): Promise<string[]> {
  const deadline = Date.now() + LEAK_GRACE_MS;
  let extra = left();
  while (extra.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => registry.pause(resolve, 20));
    extra = left();
  }
  return extra;
}

let fileBaseline = new Map<string, number>();
let testBaseline = new Map<string, number>();
let currentFile = '';
/** A failed test (a timeout, say) may leave its processes behind: the file's check then stays quiet. */
let aTestFailed = false;

beforeAll(() => {
  aTestFailed = false;
  registry.timers.clear();
  registry.label = 'beforeAll';
  fileBaseline = watchedCounts();
});

beforeEach((context) => {
  currentFile = context.task.file.filepath;
  registry.label = context.task.name;
  testBaseline = watchedCounts();
});

afterEach(async (context) => {
  const extra = await settle(() => extraHandles(testBaseline));
  registry.label = 'between tests';
  if (context.task.result?.state === 'fail') aTestFailed = true;
  if (extra.length > 0 && context.task.result?.state !== 'fail') {
    throw new Error(`test left running: ${extra.join(', ')} (close what it started, in the test or its afterEach)`);
  }
});

/**
 * Files with a leak found but not yet fixed, and why: reported on stderr instead of failing the file.
 * Remove an entry with its fix.
 */
const KNOWN_LEAKS: Readonly<Record<string, string>> = {};

afterAll(async () => {
  const extra = await settle(() => [...extraHandles(fileBaseline), ...runningTimers()]);
  registry.timers.clear();
  if (extra.length === 0 || aTestFailed) return;
  const message = `left running after the file's afterAll: ${extra.join('; ')} (clear or close them)`;
  const path = currentFile;
  const file = Object.keys(KNOWN_LEAKS).find((name) => path.endsWith(name));
  if (file) process.stderr.write(`known leak in ${file} (${KNOWN_LEAKS[file]}): ${message}\n`);
  else throw new Error(message);
});
