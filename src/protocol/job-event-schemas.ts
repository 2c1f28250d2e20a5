/** The wire contract of job events (docs/events.md): the streams' queries and one event's data. */
import { Type, type Static } from 'typebox';
import { JOB_EVENT_NAMES } from '../core/job-event.js';
import { Topic } from './schemas.js';

const EventNames = Type.String({
  description: `comma-separated event names to receive (${JOB_EVENT_NAMES.join(', ')}); absent: all`,
  examples: ['finished,dead'],
});

export const TopicEventsQuery = Type.Object(
  { topic: Topic, events: Type.Optional(EventNames) },
  { additionalProperties: false },
);
export type TopicEventsQuery = Static<typeof TopicEventsQuery>;

export const JobEventsQuery = Type.Object({ events: Type.Optional(EventNames) }, { additionalProperties: false });
export type JobEventsQuery = Static<typeof JobEventsQuery>;

/** One event as a stream's `data:` line carries it; the `id:` line carries `eventId` and `event:` its name. */
export const WireJobEvent = Type.Object({
  eventId: Type.Optional(
    Type.String({
      description:
        'place in the event log (send it back as Last-Event-ID to resume after it); absent on an event rebuilt from the state of a job that ended before its stream opened',
    }),
  ),
  event: Type.Union([
    Type.Literal('finished'),
    Type.Literal('failed'),
    Type.Literal('dead'),
    Type.Literal('cancelled'),
    Type.Literal('expired'),
  ]),
  id: Type.String({ description: 'the job id' }),
  topic: Type.String(),
  at: Type.Integer({ description: 'when it happened, epoch milliseconds' }),
  result: Type.Optional(Type.Unknown({ description: "finished: the consumer's result, if it sent one" })),
  error: Type.Optional(
    Type.Object({
      message: Type.String(),
      code: Type.Union([Type.String(), Type.Null()]),
      details: Type.Optional(Type.Unknown()),
    }),
  ),
});
export type WireJobEvent = Static<typeof WireJobEvent>;

/** The last message of a one-job stream: the job ended, nothing more will come. */
export const WireStreamEnd = Type.Object({ id: Type.String(), state: Type.String() });
export type WireStreamEnd = Static<typeof WireStreamEnd>;
