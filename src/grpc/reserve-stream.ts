/**
 * The Reserve call: one bidirectional stream per consumer. The client subscribes (topics, optional TTR)
 * in its first message and grants credit; the server long-polls the service for as many jobs as the
 * credit allows and sends them as they come, each one using one credit. Acks ride on the same stream and
 * are answered in `ackResults`. The stream holds the reservations it sent until they are finished, failed
 * or released on it; when the client closes its side, cancels, or its connection drops, every held
 * reservation is released at once (as a long-poll whose client disconnected). When the server shuts down
 * it ends the stream with UNAVAILABLE and keeps them reserved: their tokens stay good on any connection.
 */
import type { ServerDuplexStream } from '@grpc/grpc-js';
import { Type } from 'typebox';
import { DelayqError, invalid, isDelayqError } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';
import { Topic } from '../protocol/schemas.js';
import { RESERVE_MAX_COUNT, RESERVE_MAX_WAIT_MS } from '../protocol/reservation-schemas.js';
import { authorizeTopic } from '../server/auth.js';
import { releaseAll } from '../server/reserve-for-request.js';
import type { Reservation } from '../core/job.js';
import { settleAcks, validateAcks } from './acks.js';
import type { GrpcCaller } from './call-guard.js';
import { reservationMessageOf, validate } from './convert.js';
import type { ReserveStreamRequestMessage, ReserveStreamResponseMessage } from './messages.js';
import { toGrpcStatus } from './status.js';
import type { HandlerContext } from './unary-handlers.js';
import type { TrackedConsumer } from '../service/consumer-registry.js';

type ReserveCall = ServerDuplexStream<ReserveStreamRequestMessage, ReserveStreamResponseMessage>;

const SubscribeSchema = Type.Object(
  {
    topics: Type.Array(Topic, { minItems: 1, maxItems: 100 }),
    ttrMs: Type.Optional(Type.Integer({ minimum: LIMITS.ttrMinMs, maximum: LIMITS.ttrMaxMs })),
  },
  { additionalProperties: false },
);

interface Subscription {
  topics: string[];
  ttrMs?: number;
}

/** Open streams, so that a shutdown can end them. */
export class ReserveStreams {
  private readonly open = new Set<ReserveStream>();

  handler(context: HandlerContext): (call: ReserveCall) => void {
    return (call) => {
      let caller: GrpcCaller;
      try {
        caller = context.guard.admit(call.metadata, call.getPeer());
      } catch (err) {
        call.emit('error', toGrpcStatus(err));
        return;
      }
      const stream = new ReserveStream(context, call, caller, () => this.open.delete(stream));
      this.open.add(stream);
    };
  }

  get size(): number {
    return this.open.size;
  }

  /** Server shutdown: ends every stream with UNAVAILABLE, keeping its reservations reserved. */
  shutdown(): void {
    for (const stream of [...this.open]) stream.endForShutdown();
  }
}

class ReserveStream {
  /** Reservations sent on this stream and not yet settled on it: id → token and topic. */
  private readonly held = new Map<string, { token: string; topic: string }>();
  private readonly heldTopics = new Map<string, string>();
  private readonly stop = new AbortController();
  private subscription: Subscription | undefined;
  private credit = 0;
  private wakeLoop: (() => void) | undefined;
  private messages: Promise<void> = Promise.resolve();
  private ended = false;
  /** Its entry in the consumer list, from its subscription to its end. */
  private listed: TrackedConsumer | undefined;

  private readonly context: HandlerContext;
  private readonly call: ReserveCall;
  private readonly caller: GrpcCaller;
  private readonly onEnd: () => void;

  constructor(context: HandlerContext, call: ReserveCall, caller: GrpcCaller, onEnd: () => void) {
    this.context = context;
    this.call = call;
    this.caller = caller;
    this.onEnd = onEnd;
    call.on('data', (message: ReserveStreamRequestMessage) => {
      this.messages = this.messages
        .then(() => (this.ended ? undefined : this.onMessage(message)))
        .catch((err: unknown) => this.fail(err));
    });
    // The client closed its side: settle what it sent, then give back what it still holds.
    call.on('end', () => {
      void this.messages.then(() => this.finish('client closed the stream', () => this.call.end()));
    });
    call.on('cancelled', () => void this.finish('client cancelled or disconnected'));
    call.on('error', () => void this.finish('stream error'));
  }

  private async onMessage(message: ReserveStreamRequestMessage): Promise<void> {
    if (message.subscribe) {
      if (this.subscription) throw invalid('subscribe', 'only the first message may subscribe');
      const body: Record<string, unknown> = { topics: message.subscribe.topics ?? [] };
      if (message.subscribe.ttrMs !== undefined) body['ttrMs'] = message.subscribe.ttrMs;
      const subscription = validate<Subscription>(SubscribeSchema, body);
      authorizeTopic(this.caller, subscription.topics, 'subscribe.topics');
      this.subscription = subscription;
      this.listed = this.context.service.consumers.track({
        kind: 'grpc-stream',
        topics: subscription.topics,
        remote: this.call.getPeer(),
        held: () => this.held.size,
      });
      void this.reserveLoop();
    } else if (!this.subscription) {
      throw invalid('subscribe', 'the first message must subscribe (topics)');
    }
    const acks = validateAcks(message.acks ?? []);
    const credit = message.credit ?? 0;
    if (this.credit + credit > LIMITS.reserveStreamCreditMax) {
      throw invalid(
        'credit',
        `at most ${LIMITS.reserveStreamCreditMax} reservations may be asked for and not yet received`,
      );
    }
    if (acks.length) {
      const results = await settleAcks(this.context.service, acks, {
        principal: this.caller.principal,
        knownTopics: this.heldTopics,
      });
      acks.forEach((ack, i) => {
        const result = results[i]!;
        const settles =
          ack.op !== 'touch' &&
          (result.ok || result.error?.code === 'E_TOKEN_MISMATCH' || result.error?.code === 'E_WRONG_STATE');
        if (settles && this.held.get(ack.id)?.token === ack.token) this.forget(ack.id);
      });
      await this.write({ reservations: [], ackResults: results });
    }
    this.credit += credit;
    if (credit > 0) this.wakeLoop?.();
  }

  /** Long-polls the service while credit remains; sends each batch as it comes. */
  private async reserveLoop(): Promise<void> {
    const { topics, ttrMs } = this.subscription!;
    while (!this.ended) {
      if (this.credit <= 0) {
        await new Promise<void>((resolve) => (this.wakeLoop = resolve));
        this.wakeLoop = undefined;
        continue;
      }
      let reservations: Reservation[];
      try {
        reservations = await this.context.service.reserve(
          {
            topics,
            count: Math.min(this.credit, RESERVE_MAX_COUNT),
            waitMs: RESERVE_MAX_WAIT_MS,
            ...(ttrMs === undefined ? {} : { ttrMs }),
          },
          this.stop.signal,
        );
      } catch (err) {
        this.fail(err);
        return;
      }
      if (reservations.length === 0) continue;
      if (this.ended) {
        await releaseAll(this.context.service, reservations);
        return;
      }
      this.credit -= reservations.length;
      for (const r of reservations) {
        this.held.set(r.job.id, { token: r.token, topic: r.job.topic });
        this.heldTopics.set(r.job.id, r.job.topic);
      }
      await this.write({ reservations: reservations.map(reservationMessageOf), ackResults: [] });
    }
  }

  private forget(id: string): void {
    this.held.delete(id);
    this.heldTopics.delete(id);
  }

  /** Writes one message, waiting while the transport's buffer is full. */
  private write(message: ReserveStreamResponseMessage): Promise<void> {
    if (this.ended || this.call.cancelled) return Promise.resolve();
    if (this.call.write(message)) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        this.call.off('drain', done);
        this.call.off('close', done);
        resolve();
      };
      this.call.once('drain', done);
      this.call.once('close', done);
    });
  }

  /** A bad message or a failed reserve: end the stream with the mapped status (and give back what it holds). */
  private fail(err: unknown): void {
    if (this.ended) return;
    const status = toGrpcStatus(err);
    if (!isDelayqError(err)) this.context.logger.error({ err }, 'gRPC reserve stream failed');
    void this.finish(`ended: ${status.details}`, () => this.call.emit('error', status));
  }

  /** Stops reserving and releases every held reservation; then `close` ends the call (if it is still open). */
  private async finish(reason: string, close?: () => void): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.stop.abort();
    this.wakeLoop?.();
    this.onEnd();
    this.listed?.end();
    const held = [...this.held].map(([id, { token }]) => ({ job: { id }, token }) as Reservation);
    this.held.clear();
    if (held.length) {
      const released = await releaseAll(this.context.service, held);
      this.context.logger.info({ released, reason }, 'reserve stream ended; released its reservations');
    }
    close?.();
  }

  /** Server shutdown: end without releasing (the tokens stay good on any connection). */
  endForShutdown(): void {
    if (this.ended) return;
    this.ended = true;
    this.stop.abort();
    this.wakeLoop?.();
    this.onEnd();
    this.listed?.end();
    this.held.clear();
    this.call.emit('error', toGrpcStatus(new DelayqError('E_SHUTTING_DOWN', 'the service is shutting down')));
  }
}
