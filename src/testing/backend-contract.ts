import type { Backend } from '../store/backend.js';
import { bindingStoreContract } from './binding-store.contract.js';
import { scheduleStoreContract } from './schedule-store.contract.js';
import { storeContract, type ContractOptions } from './store-contract/store.contract.js';

/**
 * The suite a backend runs to prove itself (store/backend.ts): the Store contract on its jobs, the
 * ScheduleStore contract on its schedules, the BindingStore contract on two binding stores of one backend.
 * `makeBackend` is called for every test and must give a backend over data no other call sees (a new file,
 * a new key prefix), nothing open yet. The rate limiter's shared counters, if any, are not part of it.
 */
export function backendContract(
  name: string,
  makeBackend: () => Backend | Promise<Backend>,
  options: ContractOptions = {},
): void {
  storeContract(name, async () => (await makeBackend()).jobs, options);
  scheduleStoreContract(name, async () => (await makeBackend()).schedules);
  bindingStoreContract(name, async () => {
    const backend = await makeBackend();
    return [backend.bindings(), backend.bindings()];
  });
}
