/** How a consumer reaches delayq: a reserve long-poll, a gRPC reserve stream, a beanstalkd worker, a push sink. */
export const CONSUMER_KINDS = ['long-poll', 'grpc-stream', 'beanstalkd', 'sink'] as const;
export type ConsumerKind = (typeof CONSUMER_KINDS)[number];
