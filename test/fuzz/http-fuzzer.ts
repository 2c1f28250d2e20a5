/**
 * Runs generated requests against the fuzz server (a child process on a loopback port) and checks every
 * answer: no 5xx, every 4xx with a catalogue code and a message (in the envelope of its protocol), an
 * answer to every request, and the process alive and healthy at the end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES } from '../../src/core/errors.js';
import { FUZZ_BODY_LIMIT, FUZZ_TOKENS } from './fuzz-settings.js';
import { RequestGenerator, type FuzzRequest } from './request-generator.js';

export interface FuzzOptions {
  port: number;
  requests: number;
  seed: number;
  concurrency?: number;
  /** Stop early (and say so) after this long. */
  maxDurationMs?: number;
}

export interface Finding {
  kind: string;
  method: string;
  path: string;
  status: number | null;
  detail: string;
}

export interface FuzzReport {
  sent: number;
  durationMs: number;
  byStatus: Record<string, number>;
  byKind: Record<string, number>;
  serverErrors: Finding[];
  uncoded4xx: Finding[];
  unanswered: Finding[];
  crashed: boolean;
  healthyAfter: boolean;
  rssMiB: { start: number; end: number };
  serverLogErrors: string[];
  stoppedEarly: boolean;
}

const CODES = new Set<string>(ERROR_CODES);
const SERVER_FILE = fileURLToPath(new URL('./fuzz-server.ts', import.meta.url));

/** Starts the fuzz server; fails loudly if it does not listen within 30 s. */
async function startServer(port: number, stderrLines: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER_FILE, String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    for (const line of chunk.split('\n'))
      if (line.trim() && stderrLines.length < 200) stderrLines.push(line.slice(0, 2000));
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`fuzz server did not listen on 127.0.0.1:${port} within 30 s: ${stderrLines.join('\n')}`)),
      30_000,
    );
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      if (chunk.includes('listening')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once(
      'exit',
      (code) => (
        clearTimeout(timer),
        reject(new Error(`fuzz server exited (${code}) before listening: ${stderrLines.join('\n')}`))
      ),
    );
  });
  return child;
}

function rssMiB(pid: number | undefined): number {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return Math.round(kb / 1024);
  } catch {
    return -1;
  }
}

interface Answer {
  status: number;
  text: string;
}

function sendHttp(agent: http.Agent, port: number, req: FuzzRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...req.headers };
    if (req.body) headers['content-length'] = String(req.body.length);
    const outgoing = http.request(
      { host: '127.0.0.1', port, method: req.method, path: req.path, headers, agent, timeout: 20_000 },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size < 1_000_000) chunks.push(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error('no answer within 20 s')));
    outgoing.on('error', reject);
    outgoing.end(req.body);
  });
}

function sendRaw(port: number, raw: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    socket.setTimeout(20_000, () => socket.destroy(new Error('no answer within 20 s')));
    socket.on('data', (c: Buffer) => chunks.push(c));
    const finish = (err?: Error) => {
      const text = Buffer.concat(chunks).toString('latin1');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      // Only the first answer counts: a request whose body fails to parse after its head was answered gets a second one.
      const headEnd = text.indexOf('\r\n\r\n') + 4;
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, headEnd));
      const body = length
        ? Buffer.from(text.slice(headEnd), 'latin1').subarray(0, Number(length[1])).toString('utf8')
        : text.slice(headEnd);
      if (status) resolve({ status: Number(status[1]), text: body });
      else reject(err ?? new Error(`no HTTP answer (${JSON.stringify(text.slice(0, 80))})`));
    };
    socket.on('close', () => finish());
    socket.on('error', (err) => finish(err));
    socket.write(raw);
  });
}

/** A 4xx must say what was wrong: REST `{error:{code,message}}`, or the seed envelopes with the code in their text. */
function explains4xx(text: string): boolean {
  let body: { error?: unknown; message?: unknown; success?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return false;
  }
  if (body.error && typeof body.error === 'object') {
    const e = body.error as { code?: unknown; message?: unknown };
    return typeof e.code === 'string' && CODES.has(e.code) && typeof e.message === 'string' && e.message.length > 0;
  }
  const seedText = typeof body.error === 'string' ? body.error : body.message;
  return (
    body.success === false &&
    typeof seedText === 'string' &&
    /^E_[A-Z_]+: \S/.test(seedText) &&
    CODES.has(seedText.split(':')[0]!)
  );
}

export async function runHttpFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const stderrLines: string[] = [];
  const child = await startServer(options.port, stderrLines);
  let crashed = false;
  child.once('exit', () => (crashed = true));
  const generator = new RequestGenerator({ seed: options.seed, tokens: FUZZ_TOKENS, bodyLimitBytes: FUZZ_BODY_LIMIT });
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency ?? 16 });
  const report: FuzzReport = {
    sent: 0,
    durationMs: 0,
    byStatus: {},
    byKind: {},
    serverErrors: [],
    uncoded4xx: [],
    unanswered: [],
    crashed: false,
    healthyAfter: false,
    rssMiB: { start: rssMiB(child.pid), end: 0 },
    serverLogErrors: [],
    stoppedEarly: false,
  };
  const started = Date.now();
  const deadline = started + (options.maxDurationMs ?? Number.POSITIVE_INFINITY);
  const keep = (list: Finding[], finding: Finding) => list.length < 50 && list.push(finding);

  const worker = async (): Promise<void> => {
    while (report.sent < options.requests && !crashed) {
      if (Date.now() > deadline) return void (report.stoppedEarly = true);
      const req = generator.next();
      report.sent++;
      report.byKind[req.kind] = (report.byKind[req.kind] ?? 0) + 1;
      const where = {
        kind: req.kind,
        method: req.method,
        path: (req.raw ? JSON.stringify(req.raw.toString('latin1').slice(0, 120)) : req.path).slice(0, 200),
      };
      let answer: Answer;
      try {
        answer = req.raw ? await sendRaw(options.port, req.raw) : await sendHttp(agent, options.port, req);
      } catch (err) {
        keep(report.unanswered, { ...where, status: null, detail: (err as Error).message });
        continue;
      }
      const cls = `${Math.floor(answer.status / 100)}xx`;
      report.byStatus[cls] = (report.byStatus[cls] ?? 0) + 1;
      if (answer.status >= 500)
        keep(report.serverErrors, { ...where, status: answer.status, detail: answer.text.slice(0, 300) });
      else if (answer.status >= 400 && req.method !== 'HEAD' && !explains4xx(answer.text))
        keep(report.uncoded4xx, { ...where, status: answer.status, detail: answer.text.slice(0, 300) });
      else if (answer.status < 300 && answer.text.startsWith('{')) {
        try {
          generator.learn(JSON.parse(answer.text));
        } catch {
          /* not JSON after all */
        }
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 16 }, worker));
  report.durationMs = Date.now() - started;
  report.crashed = crashed;
  report.rssMiB.end = rssMiB(child.pid);
  if (!crashed) {
    try {
      report.healthyAfter =
        (await sendHttp(agent, options.port, { kind: 'health', method: 'GET', path: '/ready', headers: {} })).status ===
        200;
    } catch {
      report.healthyAfter = false;
    }
  }
  agent.destroy();
  report.serverLogErrors = stderrLines.filter((l) => /"level":(50|60)/.test(l)).slice(0, 20);
  child.kill('SIGTERM');
  await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
  return report;
}
