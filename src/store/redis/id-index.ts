/**
 * The Redis store's id index (lua/id-index.lua): per partition and topic, the topic's job ids in pages of at
 * most ID_PAGE_ENTRIES, so GET /v1/jobs reads a page of ids from its cursor instead of every job. This file
 * holds its sizes (lua-prelude.ts hands them to the scripts); id-index-build.ts builds it for a partition
 * written before it existed (record layout 7).
 */

/**
 * Ids a page holds at most: under Redis's default `zset-max-listpack-entries` (128), so a page stays a
 * listpack (an id's length + about 4 bytes; past 128 Redis turns it into a skiplist, several times bigger).
 * An insert scans its page, so 64 rather than 128: a third less work a push for a page key more per 64 ids.
 */
export const ID_PAGE_ENTRIES = 64;

/**
 * Index entries plus records one list.lua call looks at, at most, per partition: a filter that matches
 * rarely answers a short page (and where it stopped) instead of holding Redis while it reads the backlog.
 * Above twice the largest page (limits.ts listingMaxPage), so a walk of one index whose filters match fills
 * its page in one call.
 */
export const LIST_BUDGET = 4096;
