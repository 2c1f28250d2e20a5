import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/helpers/count-reporter.ts'],
    // Fails a test that left a server, child process, worker thread or timer running.
    setupFiles: ['./test/helpers/leak-check.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Files share the machine's Redis and databases; each isolates itself by key prefix or schema.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
