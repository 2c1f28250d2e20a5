// Merging id-ordered job list pages whose sources may stop early (store/id-pages.ts) and the per-topic merge
// of a scoped caller (server/scoped-listing.ts): a page is complete only up to the least `next` of its
// sources, so no job beyond it is answered before the jobs a short source has not looked at yet.
import { describe, expect, it } from 'vitest';
import type { Job } from '../../src/core/job.js';
import { BY_ID, pageOverTopics } from '../../src/server/scoped-listing.js';
import { cursorAfter } from '../../src/service/job-list-cursor.js';
import { mergeIdPages } from '../../src/store/id-pages.js';

const job = (id: string): Job => ({ id }) as Job;
const ids = (jobs: readonly Job[]) => jobs.map((j) => j.id);

describe('mergeIdPages', () => {
  it('answers up to the least next of a short source, and continues from there', () => {
    const full = { jobs: ['a1', 'a3', 'a5', 'a7'].map(job), next: 'a7' };
    const short = { jobs: [job('a2')], next: 'a4' }; // looked at everything up to a4, found one
    // Three jobs up to a4, where both sources are complete: the next page starts after a4.
    expect(mergeIdPages([full, short], 3)).toEqual({ jobs: ['a1', 'a2', 'a3'].map(job), next: 'a4' });
    expect(mergeIdPages([full, short], 2)).toEqual({ jobs: ['a1', 'a2'].map(job), next: 'a2' });
    const page = mergeIdPages([full, short], 10);
    expect(ids(page.jobs)).toEqual(['a1', 'a2', 'a3']);
    expect(page.next).toBe('a4');
  });

  it('answers no job and the least next when the short source found none', () => {
    expect(
      mergeIdPages(
        [
          { jobs: [job('b9')], next: null },
          { jobs: [], next: 'b5' },
        ],
        10,
      ),
    ).toEqual({
      jobs: [],
      next: 'b5',
    });
  });

  it('ends the listing when every source is complete, the first source winning a job both hold', () => {
    const inner = { ...job('c2'), state: 'ready' } as Job;
    const page = mergeIdPages(
      [
        { jobs: [inner], next: null },
        { jobs: [job('c1'), job('c2')], next: null },
      ],
      5,
    );
    expect(ids(page.jobs)).toEqual(['c1', 'c2']);
    expect(page.jobs[1]).toBe(inner);
    expect(page.next).toBeNull();
  });
});

describe('pageOverTopics by id', () => {
  it("holds the merge at a topic's short page and continues from its next", async () => {
    const pages: Record<string, { items: Job[]; next: string | null }> = {
      t1: { items: ['d1', 'd4', 'd6'].map(job), next: cursorAfter('d6') },
      t2: { items: [], next: cursorAfter('d3') },
    };
    const page = await pageOverTopics(['t1', 't2'], 3, undefined, async (t) => pages[t]!, BY_ID);
    expect(ids(page.items)).toEqual(['d1']);
    expect(page.next).toBe(cursorAfter('d3'));
  });
});
