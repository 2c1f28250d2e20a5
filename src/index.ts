/**
 * delayq for embedding: build the service from a Config (or your own backend or Store) and call it
 * in-process, optionally serving the HTTP API with buildApp. The HTTP SDK lives in `delayq/client`, the
 * webhook signature check in `delayq/webhook`, the contract suites for your own backend in `delayq/testing`.
 */
export { DelayqService, type ServiceOptions, type ReserveRequest, type FailRequest } from './service/service.js';
export {
  createService,
  createStore,
  createJournaledBackend,
  nodeIdOf,
  type CreateServiceOptions,
} from './create-service.js';
export { createBackend } from './store/create-backend.js';
export type { Backend, SharedRateLimits } from './store/backend.js';
export { loadConfig, configOptions, ConfigSchema, type Config, type LoadConfigOptions } from './config.js';
export { buildApp, type BuildAppOptions, type DelayqApp } from './server/app.js';
export type { RestoreHandler } from './server/routes/mykit.js';
export { DelayqError, isDelayqError, ERROR_CODES, type ErrorCode } from './core/errors.js';
export type { Job, JobState, Reservation, TopicStats, HistoryEntry } from './core/job.js';
export type { PushInput } from './core/job-input.js';
export type { Store } from './store/store.js';
