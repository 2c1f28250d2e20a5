// Single pushes from Python's standard library (bench/clients/python-push.py): threads, one kept-alive
// http.client connection each, one POST /v1/jobs per job. The interpreter is Debian's /usr/bin/python3 when
// there is one, else python3 on PATH; BENCH_PYTHON names another.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const PYTHON = process.env['BENCH_PYTHON'] ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');
const SCRIPT = fileURLToPath(new URL('../clients/python-push.py', import.meta.url));
/** A run that has not ended by then is killed and reported. */
const TIMEOUT_MS = 15 * 60_000;

export interface PythonPushResult {
  /** Time of the pushes in the Python process, s (its start-up and connecting left out). */
  seconds: number;
  /** CPU the Python process used during the pushes, ms. */
  cpuMs: number;
}

/** `count` pushes of `job` (a POST /v1/jobs body) to 127.0.0.1:`port` from `threads` threads. */
export function pythonPush(port: number, count: number, threads: number, job: unknown): Promise<PythonPushResult> {
  const args = [SCRIPT, String(port), String(count), String(threads), JSON.stringify(job)];
  return new Promise((resolve, reject) => {
    execFile(PYTHON, args, { timeout: TIMEOUT_MS, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      if (err) {
        reject(new Error(`${PYTHON} python-push.py: ${err.message}${stderr ? `: ${stderr.slice(-500)}` : ''}`));
        return;
      }
      const out = JSON.parse(stdout.trim().split('\n').pop()!) as PythonPushResult & { errors: string[] };
      if (out.errors.length) reject(new Error(`python-push.py: ${out.errors.join('; ')}`));
      else resolve({ seconds: out.seconds, cpuMs: out.cpuMs });
    });
  });
}
