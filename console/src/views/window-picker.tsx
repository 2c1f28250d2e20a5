import { setParams } from '../router.js';
import { WINDOWS, type WindowKey } from '../series.js';

/** The window of the charts, kept in the URL (`window=6h`) like every view's filters. */
export function WindowPicker({ window }: { window: WindowKey }) {
  return (
    <div class="controls" id="window-picker">
      <span class="muted">last</span>
      {(Object.keys(WINDOWS) as WindowKey[]).map((key) => (
        <button
          type="button"
          class={key === window ? 'active' : ''}
          data-window={key}
          onClick={() => setParams({ window: key })}
        >
          {WINDOWS[key].label}
        </button>
      ))}
    </div>
  );
}
