/** The console's browser tests on one embedded node (console-suite.ts). */
import { consoleSuite } from './console-suite.js';
import { embeddedTarget } from './console-targets.js';

consoleSuite('embedded', embeddedTarget);
