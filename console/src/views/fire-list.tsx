import { duration, utcOffset, wallTime } from '../format.js';

/**
 * Coming fires in the schedule's zone with their UTC offset; a fire whose offset differs from the one before
 * it is marked as crossing a daylight-saving change (the wall clock jumped or repeated in between).
 */
export function FireList({ fires, zone, id }: { fires: number[]; zone: string; id: string }) {
  return (
    <ol id={id} class="fires">
      {fires.map((at, i) => {
        const offset = utcOffset(at, zone);
        const before = i > 0 ? utcOffset(fires[i - 1]!, zone) : offset;
        return (
          <li data-at={at} data-offset={offset} class={offset !== before ? 'dst-change' : ''}>
            {wallTime(at, zone)}{' '}
            <span class="muted">
              {zone} ({offset})
            </span>{' '}
            <span class="muted">{duration(at - Date.now())}</span>
            {offset !== before && (
              <span class="dst" title="a daylight-saving change lies between this fire and the one before">
                {' '}
                DST change: {before} → {offset}
              </span>
            )}
          </li>
        );
      })}
    </ol>
  );
}
