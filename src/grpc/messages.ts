/** The proto messages as @grpc/proto-loader hands them over (see proto.ts for the loader options). */

export interface RetryInputMessage {
  maxAttempts?: number;
  backoff?: string;
}

export interface PushMessage {
  topic?: string;
  id?: string;
  tag?: string;
  bizKey?: string;
  bodyJson?: string;
  delayMs?: number;
  runAt?: number;
  priority?: number;
  ttrMs?: number;
  ttlMs?: number;
  retry?: RetryInputMessage;
  spreadMs?: number;
  onExists?: string;
  maxWaitMs?: number;
  dedupKey?: string;
  dedupWindowMs?: number;
  group?: string;
}

export interface JobMessage {
  id: string;
  topic: string;
  tag?: string;
  bizKey?: string;
  bodyJson: string;
  state: string;
  runAt: number;
  priority: number;
  ttrMs: number;
  ttlMs?: number;
  retry: { maxAttempts: number; backoffJson: string };
  attempts: number;
  lastError?: string;
  createdAt: number;
  readyAt?: number;
  reservedAt?: number;
  finishedAt?: number;
  deadlineAt?: number;
  group?: string;
}

export interface ReservationMessage {
  job: JobMessage;
  token: string;
  deadlineAt: number;
}

export interface AckMessage {
  id?: string;
  token?: string;
  op?: string;
  error?: string;
  retryDelayMs?: number;
  bury?: boolean;
  ttrMs?: number;
  delayMs?: number;
  resultJson?: string;
  errorCode?: string;
  errorDetailsJson?: string;
}

export interface ErrorMessage {
  code: string;
  message: string;
  field?: string;
}

export interface AckResultMessage {
  id: string;
  op: string;
  ok: boolean;
  state?: string;
  error?: ErrorMessage;
  job?: JobMessage;
}

export interface SubscribeMessage {
  topics?: string[];
  ttrMs?: number;
}

export interface ReserveStreamRequestMessage {
  subscribe?: SubscribeMessage;
  acks?: AckMessage[];
  credit?: number;
}

export interface ReserveStreamResponseMessage {
  reservations: ReservationMessage[];
  ackResults: AckResultMessage[];
}
