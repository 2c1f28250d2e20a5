import type { TopicSettings } from '../../core/topic-settings.js';
import type { TopicSettingsStore } from '../topic-settings.js';
import type { Guard } from './redis-extras.js';

/**
 * Topics' settings on Redis, beside the topic pauses (redis-extras.ts), under a hash tag of their own:
 *   {prefix:topic-settings}   hash  topic → the settings' JSON
 */
export class RedisTopicSettings implements TopicSettingsStore {
  private readonly guard: Guard;
  private readonly prefix: () => string;

  constructor(guard: Guard, prefix: () => string) {
    this.guard = guard;
    this.prefix = prefix;
  }

  private get key(): string {
    return `{${this.prefix()}:topic-settings}`;
  }

  async put(topic: string, settings: TopicSettings): Promise<void> {
    await this.guard((c) =>
      Object.keys(settings).length === 0 ? c.hdel(this.key, topic) : c.hset(this.key, topic, JSON.stringify(settings)),
    );
  }

  async list(): Promise<Map<string, TopicSettings>> {
    const all = await this.guard((c) => c.hgetall(this.key));
    return new Map(Object.entries(all).map(([topic, json]) => [topic, JSON.parse(json) as TopicSettings]));
  }
}
