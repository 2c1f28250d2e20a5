import { setParams } from '../router.js';

/**
 * Paging by cursor: the page's cursor lives in the URL (`cursor`), so a link opens the same page. "Next page"
 * follows the answer's `next`; the browser's Back returns to the page before.
 */
export function Pager({
  cursor,
  next,
  shown,
  total,
}: {
  cursor: string | null;
  next: string | null;
  shown: number;
  total?: number;
}) {
  return (
    <div class="controls pager">
      <span class="muted" id="page-info">
        {shown} shown{total !== undefined ? ` of ${total}` : ''}
        {cursor ? ' (a later page)' : ''}
      </span>
      {cursor && <button onClick={() => setParams({ cursor: null })}>First page</button>}
      {next && (
        <button id="next-page" onClick={() => setParams({ cursor: next })}>
          Next page →
        </button>
      )}
    </div>
  );
}
