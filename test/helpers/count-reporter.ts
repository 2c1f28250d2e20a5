import type { Reporter, TestModule } from 'vitest/node';

/** Prints the closing line CI counts: `N passed, N failed` (vitest's own summary is not read by CI). */
export default class CountReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      let failedInModule = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failedInModule++;
        else skipped++;
      }
      // A file can fail with every test passed (its afterAll threw, e.g. the leak check): that is a failure too.
      if (module.state() === 'failed' && failedInModule === 0) failedInModule = 1;
      failed += failedInModule;
    }
    failed += unhandledErrors.length;
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  }
}
