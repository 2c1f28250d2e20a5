// Preloaded into a delayq process by cli-start.test.ts: writes to $DELAYQ_LOADED_FILE, one per line, every
// module the process resolves (ES modules, through a resolve hook, which sees them before they load) and,
// at exit, the CommonJS modules it loaded (Node's require cache).
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const file = process.env.DELAYQ_LOADED_FILE;
register('./record-modules-hooks.mjs', import.meta.url, { data: { file } });
const require = createRequire(import.meta.url);
process.on('exit', () => appendFileSync(file, Object.keys(require.cache).join('\n') + '\n'));
