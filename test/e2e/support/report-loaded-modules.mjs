// Preloaded into a delayq process by optional-modules.test.ts: at exit, writes the CommonJS modules it loaded
// (Node's require cache, which also holds CommonJS packages imported from ES modules) to $DELAYQ_LOADED_FILE.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
process.on('exit', () => writeFileSync(process.env.DELAYQ_LOADED_FILE, JSON.stringify(Object.keys(require.cache))));
