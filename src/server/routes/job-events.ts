/**
 * Job events as Server-Sent Events (docs/events.md), so a consumer learns how a job ended without polling:
 * `GET /v1/events?topic=` follows a topic, `GET /v1/jobs/{id}/events` one job until it ends (then an `end`
 * message, and the stream closes). `Last-Event-ID` resumes after an event; heartbeat comments keep idle
 * streams open through proxies.
 */
import { Type } from 'typebox';
import { ENDING_JOB_EVENTS, JOB_EVENT_NAMES, type JobEvent, type JobEventName } from '../../core/job-event.js';
import { invalid } from '../../core/errors.js';
import { validateJobId } from '../../core/job-input.js';
import { JobEventsQuery, TopicEventsQuery, WireJobEvent, WireStreamEnd } from '../../protocol/job-event-schemas.js';
import { checkLastEventId, endedEventOf, type JobEventFilter } from '../../service/job-event-feed.js';
import type { DelayqService } from '../../service/service.js';
import type { DelayqApp, RouteContext } from '../route-context.js';
import { authorizeTopic } from '../auth.js';
import { errorResponses, visibleJob } from '../route-helpers.js';
import { toWireJobEvent } from '../wire.js';
import { EventStreams, type EventStream } from '../event-stream.js';

const NAMES = new Set<string>(JOB_EVENT_NAMES);

/** `finished,dead` → the set of names; a name that is no event is refused naming `events`. */
function eventNames(text: string | undefined): ReadonlySet<JobEventName> | undefined {
  if (text === undefined) return undefined;
  const names = text.split(',').map((n) => n.trim());
  const unknown = names.find((n) => !NAMES.has(n));
  if (unknown !== undefined) throw invalid('events', `"${unknown}" is not one of ${JOB_EVENT_NAMES.join(', ')}`);
  return new Set(names as JobEventName[]);
}

function lastEventIdOf(headers: Record<string, string | string[] | undefined>): string | null {
  const value = headers['last-event-id'];
  return checkLastEventId(typeof value === 'string' && value !== '' ? value : null);
}

const eventStreamAnswer = (description: string) => ({
  description,
  content: { 'text/event-stream': { schema: Type.String({ description }) } },
});

export function registerJobEventRoutes(app: DelayqApp, { service, config }: RouteContext): void {
  const streams = new EventStreams();
  app.addHook('preClose', (done) => {
    streams.endAll();
    done();
  });
  const heartbeatMs = config.events.heartbeatMs;
  const lastEventIdHeader = Type.Object({
    'last-event-id': Type.Optional(Type.String({ description: 'resume after this event (SSE reconnect)' })),
  });
  const dataDoc =
    'each event: `id: <eventId>`, `event: <name>`, `data: <JSON object with ' +
    `${Object.keys(WireJobEvent.properties).join(', ')}>\``;

  app.get(
    '/v1/events',
    {
      schema: {
        tags: ['events'],
        summary: "Follow a topic's job events (finished, failed, dead, cancelled, expired) as Server-Sent Events",
        description: `${dataDoc}; every instance's events on a shared store. Heartbeat comments every ${heartbeatMs} ms.`,
        querystring: TopicEventsQuery,
        headers: lastEventIdHeader,
        response: { 200: eventStreamAnswer('text/event-stream of job events'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { topic } = request.query;
      authorizeTopic(request, topic);
      const filter = { topic, events: eventNames(request.query.events) };
      const lastEventId = lastEventIdOf(request.headers);
      const stream = streams.start(reply, heartbeatMs);
      await follow(service, stream, filter, lastEventId, (e) => stream.send(e.event, toWireJobEvent(e), e.eventId));
    },
  );

  app.get(
    '/v1/jobs/:id/events',
    {
      schema: {
        tags: ['events'],
        summary: "Follow one job's events until it ends, as Server-Sent Events",
        description:
          `${dataDoc}. When the job ends (finished, dead, cancelled, expired) an \`event: end\` message ` +
          `(data ${JSON.stringify(Object.keys(WireStreamEnd.properties))}) follows and the stream closes; a job ` +
          'that ended before the stream opened gets its ending event rebuilt from its state (no id), then `end`.',
        params: Type.Object({ id: Type.String() }),
        querystring: JobEventsQuery,
        headers: lastEventIdHeader,
        response: { 200: eventStreamAnswer('text/event-stream of one job’s events'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const id = validateJobId(request.params.id, 'id');
      await visibleJob(request, service, id);
      const names = eventNames(request.query.events);
      const lastEventId = lastEventIdOf(request.headers);
      const endWith = (e: { event: JobEventName; eventId?: string } & Parameters<typeof toWireJobEvent>[0]) => {
        if (names === undefined || names.has(e.event)) stream.send(e.event, toWireJobEvent(e), e.eventId);
        if (!ENDING_JOB_EVENTS.has(e.event)) return;
        stream.send('end', { id, state: e.event });
        stream.end();
      };
      // Whatever the stream missed (an expiry met by a reserve, an end before it opened) shows in the job's state.
      const checkEnded = async (): Promise<void> => {
        const current = await service.store.get(id);
        if (stream.closed) return;
        if (current === null) return stream.end('the job is gone (purged)');
        const ended = endedEventOf(current, await service.store.outcomeOf(id));
        if (ended && !stream.closed) endWith(ended);
      };
      const stream: EventStream = streams.start(reply, heartbeatMs, () => void checkEnded().catch(() => undefined));
      await follow(service, stream, { id }, lastEventId, endWith);
      if (!stream.closed) await checkEnded().catch(() => undefined);
    },
  );
}

/** Registers the follower and ties its end to the stream's; a store that cannot follow ends the stream. */
async function follow(
  service: DelayqService,
  stream: EventStream,
  filter: JobEventFilter,
  lastEventId: string | null,
  listener: (event: JobEvent) => void,
): Promise<void> {
  try {
    const unsubscribe = await service.jobEvents.follow(filter, lastEventId, listener);
    stream.onEnd(unsubscribe);
  } catch (err) {
    stream.end(`cannot follow events: ${(err as Error).message}`);
  }
}
