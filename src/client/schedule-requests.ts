/**
 * The SDK's requests on periodic schedules (/v1/schedules, docs/schedules.md): DelayqClient's schedule
 * methods delegate here and keep their documentation.
 */
import type { ApiRequester, RequestOptions } from './api-request.js';
import type {
  PutScheduleRequest,
  Schedule,
  ScheduleFiresQuery,
  ScheduleFiresResponse,
} from '../protocol/schedule-schemas.js';

export class ScheduleRequests {
  private readonly http: ApiRequester;

  constructor(http: ApiRequester) {
    this.http = http;
  }

  async putSchedule(name: string, schedule: PutScheduleRequest, options?: RequestOptions): Promise<Schedule> {
    return (
      await this.http.request<{ schedule: Schedule }>(
        'PUT',
        `/v1/schedules/${encodeURIComponent(name)}`,
        schedule,
        options,
      )
    ).schedule;
  }

  async getSchedule(name: string, options?: RequestOptions): Promise<Schedule> {
    return (
      await this.http.request<{ schedule: Schedule }>(
        'GET',
        `/v1/schedules/${encodeURIComponent(name)}`,
        undefined,
        options,
      )
    ).schedule;
  }

  async listSchedules(options?: RequestOptions): Promise<Schedule[]> {
    return (await this.http.request<{ schedules: Schedule[] }>('GET', '/v1/schedules', undefined, options)).schedules;
  }

  async deleteSchedule(name: string, options?: RequestOptions): Promise<void> {
    await this.http.request<{ deleted: boolean }>(
      'DELETE',
      `/v1/schedules/${encodeURIComponent(name)}`,
      undefined,
      options,
    );
  }

  async pauseSchedule(name: string, options?: RequestOptions): Promise<Schedule> {
    return (
      await this.http.request<{ schedule: Schedule }>(
        'POST',
        `/v1/schedules/${encodeURIComponent(name)}/pause`,
        undefined,
        options,
      )
    ).schedule;
  }

  async scheduleFires(
    name: string,
    counts: ScheduleFiresQuery = {},
    options?: RequestOptions,
  ): Promise<ScheduleFiresResponse> {
    const query = new URLSearchParams(
      Object.entries(counts).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    const path = `/v1/schedules/${encodeURIComponent(name)}/fires${query ? `?${query}` : ''}`;
    return this.http.request<ScheduleFiresResponse>('GET', path, undefined, options);
  }

  async resumeSchedule(name: string, options?: RequestOptions): Promise<Schedule> {
    return (
      await this.http.request<{ schedule: Schedule }>(
        'POST',
        `/v1/schedules/${encodeURIComponent(name)}/resume`,
        undefined,
        options,
      )
    ).schedule;
  }
}
