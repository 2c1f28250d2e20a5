/** Settings shared by the fuzz server (child process) and the fuzzer. */
export const FUZZ_BODY_LIMIT = 64 * 1024;
export const FUZZ_TOKENS = { admin: 'fuzz-admin-token-5c1e9b7a33', scoped: 'fuzz-orders-token-0d4f2a8e61' } as const;
