/** Listing dead letters on the wire (HTTP GET /v1/dead, gRPC ListDead). */
import { Type } from 'typebox';
import { LIST_CURSOR_TEXT, Topic } from './schemas.js';

export const DeadQuery = Type.Object(
  {
    topic: Topic,
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    cursor: Type.Optional(Type.String({ maxLength: 512, description: LIST_CURSOR_TEXT })),
  },
  { additionalProperties: false },
);
