/**
 * The typed SDK: every operation of the HTTP API, over kept-alive connections (transport.ts). Error answers come back as
 * the same DelayqError (same `code`, `field`, `details`) the server threw, so callers branch on
 * `err.code` on both sides. Imports only protocol/ and core/errors, so it can ship on its own.
 */
import type {
  Ack,
  AckResponse,
  AckResult,
  ReserveAndAckRequest,
  ReserveAndAckResponse,
} from '../protocol/ack-schemas.js';
import { DEFAULT_CLIENT_URL, transportFor, type DelayqClientOptions } from './client-options.js';
import { ApiRequester, queryString, type RequestOptions } from './api-request.js';
import { PushCoalescer } from './push-coalescer.js';
import { JobRequests } from './job-requests.js';
import { ScheduleRequests } from './schedule-requests.js';
import { FlowControlRequests } from './flow-control-requests.js';
import { followEvents, type FollowOptions } from './event-stream.js';
import type { WireJobEvent } from '../protocol/job-event-schemas.js';
import type {
  CancelResponse,
  CountResponse,
  HealthResponse,
  JobResponse,
  ListQuery,
  ListResponse,
  PushBatchResponse,
  PushRequest,
  PushResponse,
  RedriveRequest,
  RescheduleRequest,
  StatsResponse,
  TopicPauseResponse,
  WireHistoryEntry,
  WireJob,
  WireTopicStats,
} from '../protocol/schemas.js';
import type { TopicSettingsRequest, TopicSettingsResponse } from '../protocol/topic-settings-schemas.js';
import type {
  FailRequest,
  FailResponse,
  ReserveRequest,
  ReserveResponse,
  WireReservation,
} from '../protocol/reservation-schemas.js';
import type {
  PutScheduleRequest,
  Schedule,
  ScheduleFiresQuery,
  ScheduleFiresResponse,
} from '../protocol/schedule-schemas.js';
import type { WireOutcome } from '../protocol/outcome-schemas.js';
import type { DelayedQuery, DelayedResponse, ReservedQuery, ReservedResponse } from '../protocol/listing-schemas.js';
import type { BulkRequest, BulkResponse } from '../protocol/bulk-schemas.js';
import type { GroupPauseResponse, GroupPausesResponse } from '../protocol/group-pause-schemas.js';

export { DEFAULT_CLIENT_URL, type DelayqClientOptions } from './client-options.js';
export type { RequestOptions } from './api-request.js';

export class DelayqClient {
  readonly url: string;
  private readonly http: ApiRequester;
  private readonly pushes: PushCoalescer | undefined;
  /** Paths and bodies by resource: job-requests.ts, schedule-requests.ts, flow-control-requests.ts. */
  private readonly jobs: JobRequests;
  private readonly schedules: ScheduleRequests;
  private readonly flowControl: FlowControlRequests;

  constructor(options: DelayqClientOptions = {}) {
    this.url = (options.url ?? DEFAULT_CLIENT_URL).replace(/\/+$/, '');
    this.http = new ApiRequester(this.url, options.token, transportFor(this.url, options));
    this.jobs = new JobRequests(this.http);
    this.schedules = new ScheduleRequests(this.http);
    this.flowControl = new FlowControlRequests(this.http);
    if (options.coalescePushes !== false) {
      this.pushes = new PushCoalescer(
        {
          one: (text) => this.http.requestText('POST', '/v1/jobs', text),
          batch: async (texts) =>
            (await this.http.requestText<PushBatchResponse>('POST', '/v1/jobs/batch', `{"jobs":[${texts.join(',')}]}`))
              .results,
        },
        options.pushWindowMs ?? 0,
      );
    }
  }

  /** Sends the pushes still gathered, then closes the kept-alive connections once every request is answered. */
  close(): Promise<void> {
    this.pushes?.sendNow();
    return this.http.close();
  }

  /**
   * Pushes one job; `created: false` when a job with that id already existed (idempotent push), and `outcome`
   * says what the push did to it (`kept`, or `replaced` / `extended` with `onExists`); with `dedupKey` inside
   * its window, `duplicate` and the first job of the key (`created: false`, no job made). Pushes made
   * together go out as batch requests unless `coalescePushes` is false; each gets its own answer.
   */
  push(job: PushRequest, options?: RequestOptions): Promise<PushResponse> {
    if (this.pushes && !options?.signal) return this.pushes.add(job);
    return this.http.request('POST', '/v1/jobs', job, options);
  }

  /** Pushes up to 1000 jobs in one request; all are validated before any is stored. */
  async pushBatch(jobs: PushRequest[], options?: RequestOptions): Promise<PushResponse[]> {
    return (await this.http.request<PushBatchResponse>('POST', '/v1/jobs/batch', { jobs }, options)).results;
  }

  get(id: string, options?: RequestOptions): Promise<WireJob> {
    return this.jobs.get(id, options);
  }

  /** A job with its history (every transition). */
  getWithHistory(id: string, options?: RequestOptions): Promise<{ job: WireJob; history: WireHistoryEntry[] }> {
    return this.jobs.getWithHistory(id, options);
  }

  history(id: string, options?: RequestOptions): Promise<WireHistoryEntry[]> {
    return this.jobs.history(id, options);
  }

  /** Cancels a job; `dispatched` says whether it had already gone out (was reserved), `attempts` how often. */
  cancel(id: string, reason?: string, options?: RequestOptions): Promise<CancelResponse> {
    return this.jobs.cancel(id, reason, options);
  }

  reschedule(id: string, when: RescheduleRequest, options?: RequestOptions): Promise<WireJob> {
    return this.jobs.reschedule(id, when, options);
  }

  /** Makes a delayed job (waiting for its due time or a retry) ready at once; any other state is E_WRONG_STATE. */
  runNow(id: string, options?: RequestOptions): Promise<WireJob> {
    return this.jobs.runNow(id, options);
  }

  /** Jobs in id order (GET /v1/jobs): a page may hold fewer than `limit`, or none, while `next` is set. */
  list(query: ListQuery = {}, options?: RequestOptions): Promise<ListResponse> {
    return this.http.request('GET', `/v1/jobs${queryString(query)}`, undefined, options);
  }

  /**
   * Reserves up to `count` ready jobs of `topics`; with `waitMs`, waits until one is ready (long-poll).
   * Aborting `signal` drops the request, and the server releases whatever it reserved for it.
   */
  async reserve(request: ReserveRequest, options?: RequestOptions): Promise<WireReservation[]> {
    return (await this.http.request<ReserveResponse>('POST', '/v1/reserve', request, options)).reservations;
  }

  /**
   * Reserve carrying the acknowledgements of the previous batch: they are settled first (results in
   * `acks`, one per item, in order), then up to `count` jobs are reserved. One round trip per batch.
   */
  reserveAndAck(request: ReserveAndAckRequest, options?: RequestOptions): Promise<ReserveAndAckResponse> {
    return this.http.request('POST', '/v1/reserve', request, options);
  }

  /**
   * Settles up to 1000 reservations in one request (finish, fail, release, touch). Each item has its own
   * result, in order: a stale token or a foreign topic refuses that item only (`ok: false`, `error.code`).
   */
  async ack(acks: Ack[], options: RequestOptions & { jobs?: boolean } = {}): Promise<AckResult[]> {
    const body = options.jobs === undefined ? { acks } : { acks, jobs: options.jobs };
    return (await this.http.request<AckResponse>('POST', '/v1/ack', body, options)).results;
  }

  async touch(id: string, token: string, ttrMs?: number, options?: RequestOptions): Promise<WireJob> {
    const body = ttrMs === undefined ? { token } : { token, ttrMs };
    return (await this.http.request<JobResponse>('POST', `/v1/jobs/${encodeURIComponent(id)}/touch`, body, options))
      .job;
  }

  /** Finishes a reservation; `result` (any JSON value) is kept with the job (see `outcome`). */
  async finish(id: string, token: string, options?: RequestOptions & { result?: unknown }): Promise<WireJob> {
    const body = options?.result === undefined ? { token } : { token, result: options.result };
    return (await this.http.request<JobResponse>('POST', `/v1/jobs/${encodeURIComponent(id)}/finish`, body, options))
      .job;
  }

  /** A job with what its consumer reported (a finish's result, a fail's error), if anything. */
  getWithOutcome(id: string, options?: RequestOptions): Promise<{ job: WireJob; outcome: WireOutcome | null }> {
    return this.jobs.getWithOutcome(id, options);
  }

  /** One bounded slice of a bulk operation by selector; call again with `next` until it is null. */
  bulk(request: BulkRequest, options?: RequestOptions): Promise<BulkResponse> {
    return this.http.request('POST', '/v1/jobs/bulk', request, options);
  }

  /** Delayed jobs by due time (next to fire first), within [from, to). */
  listDelayed(query: DelayedQuery = {}, options?: RequestOptions): Promise<DelayedResponse> {
    return this.http.request('GET', `/v1/delayed${queryString(query)}`, undefined, options);
  }

  /** Reserved jobs by TTR deadline, with the node holding each. */
  listReserved(query: ReservedQuery = {}, options?: RequestOptions): Promise<ReservedResponse> {
    return this.http.request('GET', `/v1/reserved${queryString(query)}`, undefined, options);
  }

  /** Fails a reservation: the server retries after the job's backoff, or buries it when no attempts remain. */
  fail(
    id: string,
    token: string,
    failure: Omit<FailRequest, 'token'> = {},
    options?: RequestOptions,
  ): Promise<FailResponse> {
    return this.http.request('POST', `/v1/jobs/${encodeURIComponent(id)}/fail`, { token, ...failure }, options);
  }

  /** Gives a reservation back (the attempt does not count): ready at once, or after `delayMs` (ms or "30s"). */
  async release(id: string, token: string, options?: RequestOptions & { delayMs?: number | string }): Promise<WireJob> {
    const body = options?.delayMs === undefined ? { token } : { token, delayMs: options.delayMs };
    return (await this.http.request<JobResponse>('POST', `/v1/jobs/${encodeURIComponent(id)}/release`, body, options))
      .job;
  }

  /** Dead → ready: the oldest `limit` dead jobs of a topic, or the given ids. Returns how many moved. */
  async redrive(target: RedriveRequest, options?: RequestOptions): Promise<number> {
    return (await this.http.request<CountResponse>('POST', '/v1/dead/redrive', target, options)).count;
  }

  listDead(
    topic: string,
    query: { limit?: number; cursor?: string } = {},
    options?: RequestOptions,
  ): Promise<ListResponse> {
    return this.http.request('GET', `/v1/dead${queryString({ topic, ...query })}`, undefined, options);
  }

  async stats(options?: RequestOptions): Promise<WireTopicStats[]> {
    return (await this.http.request<StatsResponse>('GET', '/v1/stats', undefined, options)).topics;
  }

  /** Pauses a topic: reserve and delivery skip its jobs until resumeTopic, or for `delayMs` (ms or "30s"). */
  pauseTopic(
    topic: string,
    pause: { delayMs?: number | string } = {},
    options?: RequestOptions,
  ): Promise<TopicPauseResponse> {
    return this.flowControl.pauseTopic(topic, pause, options);
  }

  resumeTopic(topic: string, options?: RequestOptions): Promise<TopicPauseResponse> {
    return this.flowControl.resumeTopic(topic, options);
  }

  /** Pauses one group of a topic (its jobs stay ready, the others go on) until resumeGroup, or for `delayMs`. */
  pauseGroup(
    topic: string,
    group: string,
    pause: { delayMs?: number | string } = {},
    options?: RequestOptions,
  ): Promise<GroupPauseResponse> {
    return this.flowControl.pauseGroup(topic, group, pause, options);
  }

  resumeGroup(topic: string, group: string, options?: RequestOptions): Promise<GroupPauseResponse> {
    return this.flowControl.resumeGroup(topic, group, options);
  }

  /** A topic's paused groups, by name, each with when its pause ends (null: until resumed). */
  pausedGroups(topic: string, options?: RequestOptions): Promise<GroupPausesResponse['groups']> {
    return this.flowControl.pausedGroups(topic, options);
  }

  /** A topic's flow-control settings (docs/flow-control.md): its dispatch rate limit and groupConcurrency, if any. */
  getTopicSettings(topic: string, options?: RequestOptions): Promise<TopicSettingsResponse> {
    return this.flowControl.getTopicSettings(topic, options);
  }

  /** Replaces a topic's settings (a field left out is cleared), for every instance on the store. */
  putTopicSettings(
    topic: string,
    settings: TopicSettingsRequest,
    options?: RequestOptions,
  ): Promise<TopicSettingsResponse> {
    return this.flowControl.putTopicSettings(topic, settings, options);
  }

  async purge(before: number, limit?: number, options?: RequestOptions): Promise<number> {
    return (
      await this.http.request<CountResponse>(
        'POST',
        '/v1/purge',
        limit === undefined ? { before } : { before, limit },
        options,
      )
    ).count;
  }

  health(options?: RequestOptions): Promise<HealthResponse> {
    return this.http.request('GET', '/health', undefined, options);
  }

  /** Creates or replaces a schedule (docs/schedules.md); it applies from its first tick not yet pushed. */
  putSchedule(name: string, schedule: PutScheduleRequest, options?: RequestOptions): Promise<Schedule> {
    return this.schedules.putSchedule(name, schedule, options);
  }

  getSchedule(name: string, options?: RequestOptions): Promise<Schedule> {
    return this.schedules.getSchedule(name, options);
  }

  listSchedules(options?: RequestOptions): Promise<Schedule[]> {
    return this.schedules.listSchedules(options);
  }

  /** Deletes a schedule; jobs it already pushed stay. E_NOT_FOUND when there is none. */
  deleteSchedule(name: string, options?: RequestOptions): Promise<void> {
    return this.schedules.deleteSchedule(name, options);
  }

  pauseSchedule(name: string, options?: RequestOptions): Promise<Schedule> {
    return this.schedules.pauseSchedule(name, options);
  }

  /** A schedule's coming ticks and its latest fires with their jobs (newest first); 5 of each by default. */
  scheduleFires(
    name: string,
    counts: ScheduleFiresQuery = {},
    options?: RequestOptions,
  ): Promise<ScheduleFiresResponse> {
    return this.schedules.scheduleFires(name, counts, options);
  }

  /** Resumes a paused schedule; ticks due while it was paused are not fired. */
  resumeSchedule(name: string, options?: RequestOptions): Promise<Schedule> {
    return this.schedules.resumeSchedule(name, options);
  }

  /**
   * Follows a topic's job events (finished, failed, dead, cancelled, expired) as they happen, on every
   * instance of a shared store: `for await (const e of client.events({ topic }))`. Reconnects and resumes
   * (Last-Event-ID) when the stream drops; breaking out of the loop or `signal` stops it.
   */
  events(options: FollowOptions & { topic: string }): AsyncGenerator<WireJobEvent, void, undefined> {
    return followEvents(
      this.http.eventSource(),
      `/v1/events?topic=${encodeURIComponent(options.topic)}`,
      options,
      false,
    );
  }

  /** Follows one job's events; the iterator ends after the job ends (its last event is the ending one). */
  jobEvents(id: string, options: FollowOptions = {}): AsyncGenerator<WireJobEvent, void, undefined> {
    return followEvents(this.http.eventSource(), `/v1/jobs/${encodeURIComponent(id)}/events`, options, true);
  }
}
