import { useState } from 'preact/hooks';

interface Pending {
  text: string;
  action: string;
  resolve: (confirmed: boolean) => void;
}

/**
 * Every destructive action asks first, saying what it will do: `ask(text, action)` opens the dialog and
 * resolves true when the operator presses the action's button, false on "Keep as is".
 */
export function useConfirm() {
  const [pending, setPending] = useState<Pending | null>(null);
  const ask = (text: string, action: string): Promise<boolean> =>
    new Promise((resolve) => setPending({ text, action, resolve }));
  const answer = (confirmed: boolean) => {
    pending?.resolve(confirmed);
    setPending(null);
  };
  const dialog = pending && (
    <div class="backdrop">
      <div class="dialog" role="dialog" aria-modal="true" id="confirm">
        <p>{pending.text}</p>
        <div class="controls">
          <button class="danger" onClick={() => answer(true)}>
            {pending.action}
          </button>
          <button onClick={() => answer(false)}>Keep as is</button>
        </div>
      </div>
    </div>
  );
  return { ask, dialog };
}
