import type { ChildProcess } from 'node:child_process';

/**
 * The next IPC message from a worker process that `pick` accepts (the multi-process tests' workers report over
 * IPC); rejected if the worker exits first.
 */
export function nextMessage<M>(child: ChildProcess, pick: (m: M) => boolean): Promise<M> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: M) => {
      if (!pick(m)) return;
      child.off('message', onMessage);
      resolve(m);
    };
    child.on('message', onMessage);
    child.once('close', (code) => reject(new Error(`worker exited with ${code}`)));
  });
}
