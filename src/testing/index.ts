/**
 * `delayq/testing`: the contract suites a storage backend runs to prove itself, under vitest (an optional
 * peer dependency of the package: only this entry imports it). Run `backendContract` on your backend's
 * factory; delayq's own backends run the same suites (test/store/).
 */
export { backendContract } from './backend-contract.js';
export { storeContract, type ContractOptions } from './store-contract/store.contract.js';
export type { ReadCost } from './store-contract/read-cost.contract.js';
export { scheduleStoreContract } from './schedule-store.contract.js';
export { bindingStoreContract } from './binding-store.contract.js';
export { aJob } from './jobs.js';
export type { Backend, SharedRateLimits } from '../store/backend.js';
export type { Store } from '../store/store.js';
export type { ScheduleStore } from '../store/schedule-store.js';
export type { BindingStore, StoredBinding } from '../store/binding-store.js';
