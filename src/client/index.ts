/** The delayq SDK: `import { DelayqClient, Worker } from 'delayq/client'`. */
export { DelayqClient, type DelayqClientOptions, type RequestOptions } from './client.js';
export { errorFromResponse } from './error-answer.js';
export { Worker, type JobContext, type JobHandler, type WorkerOptions } from './worker.js';
export { DelayqError, isDelayqError, ERROR_CODES, type ErrorCode } from '../core/errors.js';
export type * from '../protocol/schemas.js';
export type * from '../protocol/ack-schemas.js';
export type * from '../protocol/topic-settings-schemas.js';
export type { FollowOptions } from './event-stream.js';
export type * from '../protocol/job-event-schemas.js';
