import { startSecureServer } from '../test/security/support/secure-server.js';
import { routeTable } from '../test/security/support/route-table.js';
const s = await startSecureServer(7698);
const t = routeTable(s.app);
console.log(t.length, t.filter(r => r.method !== 'HEAD').length);
await s.close();
