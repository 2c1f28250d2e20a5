import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../store/store.js';
import { aJob } from '../jobs.js';
import type { ContractTest } from './contract-context.js';
import { producersContract } from './producers.contract.js';
import { reserveContract } from './reserve.contract.js';
import { settleContract } from './settle.contract.js';
import { timerContract } from './timer.contract.js';
import { storePartsContract } from './parts.contract.js';
import { flowControlContract } from './flow-control.contract.js';
import { readsContract } from './reads.contract.js';
import { dueHistogramContract } from './due-histogram.contract.js';
import { jobSeriesContract } from './job-series.contract.js';
import { outcomesContract } from './outcomes.contract.js';
import { bulkContract } from './bulk.contract.js';
import { listingsContract } from './listings.contract.js';
import { beanstalkdContract } from './beanstalkd.contract.js';
import { storeLossContract } from './store-loss.contract.js';
import { runNowContract } from './run-now.contract.js';
import { upsertContract } from './upsert.contract.js';
import { dedupContract } from './dedup.contract.js';
import { groupsContract } from './groups.contract.js';
import { READ_COST_TEST, readCostContract, type ReadCost } from './read-cost.contract.js';

export interface ContractOptions {
  /** Tests this store cannot pass, each with the reason; the runner lists them as skipped, reason in the title. */
  skip?: { test: string; reason: string }[];
  /** What a read touched, by the store's own instruments (read-cost.contract.ts); without it that part is skipped. */
  readCost?: (store: Store) => ReadCost;
  /**
   * Why this store keeps no groups (capabilities.groups false, so the service refuses a push's group and a
   * topic's groupConcurrency before they reach it): the groups part is replaced by a check of that capability.
   */
  withoutGroups?: string;
}

const T0 = Date.UTC(2026, 0, 1);

/**
 * The one suite every Store must pass. Time is driven only through `now` (a fake clock): no sleeping.
 * Each store's test file calls it once, then adds its own cases.
 */
export function storeContract(
  name: string,
  makeStore: () => Store | Promise<Store>,
  options: ContractOptions = {},
): void {
  const skipped = new Map((options.skip ?? []).map((s) => [s.test, s.reason]));
  if (!options.readCost && !skipped.has(READ_COST_TEST))
    skipped.set(READ_COST_TEST, 'no ReadCost given for this store');
  const test: ContractTest = (title, fn) => {
    const reason = skipped.get(title);
    if (reason === undefined) it(title, fn);
    else it.skip(`${title} (skipped: ${reason})`, fn);
  };

  describe(`Store contract: ${name}`, () => {
    let store: Store;
    // Each test gets a unique topic so stores that share a server cannot see each other's jobs.
    let topic: string;
    let other: string;
    const job = (o: Parameters<typeof aJob>[0] = {}) => aJob({ topic, now: T0, ...o });

    beforeEach(async () => {
      store = await makeStore();
      await store.open();
      const suffix = Math.random().toString(36).slice(2, 10);
      topic = `orders-${suffix}`;
      other = `mail-${suffix}`;
    });
    afterEach(async () => {
      await store.close();
    });
    producersContract(test, () => ({ store, topic, other, job }));
    reserveContract(test, () => ({ store, topic, other, job }));
    flowControlContract(test, () => ({ store, topic, other, job }));
    settleContract(test, () => ({ store, topic, other, job }));
    timerContract(test, () => ({ store, topic, other, job }));
    storePartsContract(test, () => ({ store, topic, other, job }));
    readsContract(test, () => ({ store, topic, other, job }));
    dueHistogramContract(test, () => ({ store, topic, other, job }));
    jobSeriesContract(test, () => ({ store, topic, other, job }));
    outcomesContract(test, () => ({ store, topic, other, job }));
    bulkContract(test, () => ({ store, topic, other, job }));
    listingsContract(test, () => ({ store, topic, other, job }));
    beanstalkdContract(test, () => ({ store, topic, other, job }));
    storeLossContract(test, () => ({ store, topic, other, job }));
    runNowContract(test, () => ({ store, topic, other, job }));
    upsertContract(test, () => ({ store, topic, other, job }));
    dedupContract(test, () => ({ store, topic, other, job }));
    if (options.withoutGroups === undefined) groupsContract(test, () => ({ store, topic, other, job }));
    else
      test(`declares it keeps no groups (${options.withoutGroups})`, async () => {
        expect(store.capabilities.groups).toBe(false);
      });
    readCostContract(test, () => ({ store, topic, other, job }), options.readCost);
  });
}
