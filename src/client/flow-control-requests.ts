/**
 * The SDK's flow-control requests (docs/flow-control.md): pausing and resuming a topic or one of its groups,
 * and a topic's settings. DelayqClient's methods delegate here and keep their documentation.
 */
import type { ApiRequester, RequestOptions } from './api-request.js';
import type { TopicPauseResponse } from '../protocol/schemas.js';
import type { TopicSettingsRequest, TopicSettingsResponse } from '../protocol/topic-settings-schemas.js';
import type { GroupPauseResponse, GroupPausesResponse } from '../protocol/group-pause-schemas.js';

const groupPath = (topic: string, group: string) =>
  `/v1/topics/${encodeURIComponent(topic)}/groups/${encodeURIComponent(group)}`;

export class FlowControlRequests {
  private readonly http: ApiRequester;

  constructor(http: ApiRequester) {
    this.http = http;
  }

  pauseTopic(
    topic: string,
    pause: { delayMs?: number | string } = {},
    options?: RequestOptions,
  ): Promise<TopicPauseResponse> {
    return this.http.request('POST', `/v1/topics/${encodeURIComponent(topic)}/pause`, pause, options);
  }

  resumeTopic(topic: string, options?: RequestOptions): Promise<TopicPauseResponse> {
    return this.http.request('POST', `/v1/topics/${encodeURIComponent(topic)}/resume`, undefined, options);
  }

  pauseGroup(
    topic: string,
    group: string,
    pause: { delayMs?: number | string } = {},
    options?: RequestOptions,
  ): Promise<GroupPauseResponse> {
    return this.http.request('POST', `${groupPath(topic, group)}/pause`, pause, options);
  }

  resumeGroup(topic: string, group: string, options?: RequestOptions): Promise<GroupPauseResponse> {
    return this.http.request('POST', `${groupPath(topic, group)}/resume`, undefined, options);
  }

  async pausedGroups(topic: string, options?: RequestOptions): Promise<GroupPausesResponse['groups']> {
    const path = `/v1/topics/${encodeURIComponent(topic)}/groups/paused`;
    return (await this.http.request<GroupPausesResponse>('GET', path, undefined, options)).groups;
  }

  getTopicSettings(topic: string, options?: RequestOptions): Promise<TopicSettingsResponse> {
    return this.http.request('GET', `/v1/topics/${encodeURIComponent(topic)}/settings`, undefined, options);
  }

  putTopicSettings(
    topic: string,
    settings: TopicSettingsRequest,
    options?: RequestOptions,
  ): Promise<TopicSettingsResponse> {
    return this.http.request('PUT', `/v1/topics/${encodeURIComponent(topic)}/settings`, settings, options);
  }
}
