/** The console's browser tests on two nodes sharing one Redis, pages served by either (console-suite.ts). */
import { consoleSuite } from './console-suite.js';
import { redisPairTarget } from './console-targets.js';

consoleSuite('two nodes on Redis', redisPairTarget);
