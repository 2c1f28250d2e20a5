/**
 * The SDK's requests on one job by id (/v1/jobs/{id}): reading it (alone, with its history, with its
 * outcome) and a producer's changes to it (cancel, reschedule, run now). DelayqClient's methods delegate
 * here and keep their documentation.
 */
import type { ApiRequester, RequestOptions } from './api-request.js';
import type {
  CancelRequest,
  CancelResponse,
  GetJobResponse,
  HistoryResponse,
  JobResponse,
  RescheduleRequest,
  WireHistoryEntry,
  WireJob,
} from '../protocol/schemas.js';
import type { WireOutcome } from '../protocol/outcome-schemas.js';

export class JobRequests {
  private readonly http: ApiRequester;

  constructor(http: ApiRequester) {
    this.http = http;
  }

  async get(id: string, options?: RequestOptions): Promise<WireJob> {
    return (await this.http.request<GetJobResponse>('GET', `/v1/jobs/${encodeURIComponent(id)}`, undefined, options))
      .job;
  }

  async getWithHistory(id: string, options?: RequestOptions): Promise<{ job: WireJob; history: WireHistoryEntry[] }> {
    const answer = await this.http.request<GetJobResponse>(
      'GET',
      `/v1/jobs/${encodeURIComponent(id)}?history=true`,
      undefined,
      options,
    );
    return { job: answer.job, history: answer.history ?? [] };
  }

  async getWithOutcome(id: string, options?: RequestOptions): Promise<{ job: WireJob; outcome: WireOutcome | null }> {
    const answer = await this.http.request<GetJobResponse>(
      'GET',
      `/v1/jobs/${encodeURIComponent(id)}`,
      undefined,
      options,
    );
    return { job: answer.job, outcome: answer.outcome ?? null };
  }

  async history(id: string, options?: RequestOptions): Promise<WireHistoryEntry[]> {
    return (
      await this.http.request<HistoryResponse>('GET', `/v1/jobs/${encodeURIComponent(id)}/history`, undefined, options)
    ).history;
  }

  async cancel(id: string, reason?: string, options?: RequestOptions): Promise<CancelResponse> {
    const body: CancelRequest = reason === undefined ? {} : { reason };
    return this.http.request<CancelResponse>('POST', `/v1/jobs/${encodeURIComponent(id)}/cancel`, body, options);
  }

  async reschedule(id: string, when: RescheduleRequest, options?: RequestOptions): Promise<WireJob> {
    return (
      await this.http.request<JobResponse>('POST', `/v1/jobs/${encodeURIComponent(id)}/reschedule`, when, options)
    ).job;
  }

  async runNow(id: string, options?: RequestOptions): Promise<WireJob> {
    return (await this.http.request<JobResponse>('POST', `/v1/jobs/${encodeURIComponent(id)}/run-now`, {}, options))
      .job;
  }
}
