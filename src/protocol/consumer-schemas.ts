/** The wire contract of the consumer list (GET /v1/consumers): who takes jobs of which topics, store-wide. */
import { Type, type Static } from 'typebox';
import { CONSUMER_KINDS } from '../core/consumer-kind.js';
import { LIMITS } from '../core/limits.js';
import { EpochMs, Nullable, Topic } from './schemas.js';

export const ConsumerSchema = Type.Object({
  id: Type.String({ description: 'unique in the list: the node and a number of its own' }),
  node: Type.String({ description: 'the delayq process it is connected to' }),
  kind: Type.Enum(CONSUMER_KINDS, {
    description:
      'long-poll: a reserve waiting (POST /v1/reserve and the seed endpoints); grpc-stream: an open Reserve stream; ' +
      'beanstalkd: a connection that reserved; sink: a delivery binding being pumped',
  }),
  topics: Type.Array(Type.String(), { description: "the topics it takes jobs of (a beanstalkd worker's watch list)" }),
  since: { ...EpochMs, description: 'waiting since (long-poll), connected or pumping since (the others)' },
  remote: Nullable(Type.String({ description: "the client's address ip:port; a sink's type and name" })),
  held: Type.Integer({ minimum: 0, description: 'reservations it holds now' }),
});
export type WireConsumer = Static<typeof ConsumerSchema>;

export const ConsumerListQuery = Type.Object(
  {
    topic: Type.Optional({ ...Topic, description: 'only the consumers of this topic' }),
    kind: Type.Optional(Type.Enum(CONSUMER_KINDS)),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.listingMaxPage, default: 1000 })),
  },
  { additionalProperties: false },
);
export type ConsumerListQuery = Static<typeof ConsumerListQuery>;

export const ConsumerListResponse = Type.Object({
  consumers: Type.Array(ConsumerSchema, { description: 'oldest first, at most limit' }),
  total: Type.Integer({ description: 'consumers matching, before the limit' }),
});
export type ConsumerListResponse = Static<typeof ConsumerListResponse>;
