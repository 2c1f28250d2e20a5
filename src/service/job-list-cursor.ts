/**
 * The cursor of job listings (`GET /v1/jobs`, `GET /v1/dead`, gRPC List): `after:<id>`, the last job id of
 * the page before; the next page starts after it in id order. A cursor of another shape was not given by
 * a page: it is refused (E_VALIDATION naming `cursor`), never read as an id.
 */
import { invalid } from '../core/errors.js';
import { ID_RE } from '../core/limits.js';

const PREFIX = 'after:';

export function cursorAfter(lastId: string): string {
  return PREFIX + lastId;
}

/** The id a cursor continues after; undefined for the first page. */
export function idOfCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const id = cursor.startsWith(PREFIX) ? cursor.slice(PREFIX.length) : '';
  if (!ID_RE.test(id)) throw invalid('cursor', 'must be the `next` of a previous page');
  return id;
}
