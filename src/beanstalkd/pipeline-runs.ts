import { u32 } from './replies.js';
import type { Frame, PutArgs } from './wire-parser.js';

/** Frames as they will run: a run of one command pipelined back to back, or a frame on its own. */
export type Run =
  | { kind: 'put'; puts: { args: PutArgs; body: Buffer }[] }
  | { kind: 'delete'; numbers: number[] }
  | { kind: 'reserve'; name: 'reserve' | 'reserve-with-timeout'; count: number; timeoutSeconds: number | null }
  | { kind: 'one'; frame: Frame };

const RESERVE_WITH_TIMEOUT = 'reserve-with-timeout ';

/** What run a frame may join: its key (frames of equal keys run together), or null for a frame on its own. */
function runKey(frame: Frame): string | null {
  if (frame.kind === 'put') return frame.body === null ? null : 'put';
  if (frame.kind !== 'line') return null;
  const { line } = frame;
  if (line.startsWith('delete ')) return u32(line.slice(7)) === null ? null : 'delete';
  if (line === 'reserve') return line;
  if (line.startsWith(RESERVE_WITH_TIMEOUT)) return u32(line.slice(RESERVE_WITH_TIMEOUT.length)) === null ? null : line;
  return null;
}

/**
 * Groups consecutive frames of one well-formed put, delete or reserve (the same timeout) into runs of at most
 * `maxRun`; anything else, a malformed one included, stays on its own and is answered as it always was.
 */
export function pipelineRuns(frames: readonly Frame[], maxRun: number): Run[] {
  const runs: Run[] = [];
  let i = 0;
  while (i < frames.length) {
    const key = runKey(frames[i]!);
    let j = i + 1;
    if (key !== null) while (j < frames.length && j - i < maxRun && runKey(frames[j]!) === key) j++;
    if (j - i === 1) runs.push({ kind: 'one', frame: frames[i]! });
    else runs.push(toRun(key!, frames.slice(i, j)));
    i = j;
  }
  return runs;
}

function toRun(key: string, frames: Frame[]): Run {
  if (key === 'put') {
    return {
      kind: 'put',
      puts: frames.map((f) => f as Extract<Frame, { kind: 'put' }>).map((f) => ({ args: f.args, body: f.body! })),
    };
  }
  const lines = frames.map((f) => (f as Extract<Frame, { kind: 'line' }>).line);
  if (key === 'delete') return { kind: 'delete', numbers: lines.map((l) => u32(l.slice(7))!) };
  if (key === 'reserve') return { kind: 'reserve', name: 'reserve', count: frames.length, timeoutSeconds: null };
  const timeoutSeconds = u32(key.slice(RESERVE_WITH_TIMEOUT.length))!;
  return { kind: 'reserve', name: 'reserve-with-timeout', count: frames.length, timeoutSeconds };
}
