import type { Backend } from '../store/backend.js';
import type { Journal } from './journal.js';
import { JournaledScheduleStore } from './journaled-schedule-store.js';
import { JournaledStore, type JournaledStoreOptions } from './journaled-store/journaled-store.js';

/**
 * A backend made restorable by a SQL journal: its jobs and its schedules are wrapped, and every full
 * restore of the jobs also puts back the schedules the backend lost. Bindings and rate-limit counters are
 * the backend's alone (bindings are configuration, seeded again from the config file at start).
 */
export function journaledBackend(backend: Backend, journal: Journal, options: JournaledStoreOptions): Backend {
  const jobs = new JournaledStore(backend.jobs, journal, options);
  const schedules = new JournaledScheduleStore(backend.schedules, journal);
  jobs.onRestore(() => schedules.restoreMissing().then(() => undefined));
  return { ...backend, jobs, schedules };
}
