import { startSecureServer } from '../test/security/support/secure-server.js';
const s = await startSecureServer(7699);
for (const p of ['/docs/swagger-ui.css','/docs/index.html','/docs/static/swagger-ui.css', '/docs/nothing.js']) for (const m of ['GET','HEAD']) { const r = await fetch(s.url+p,{method:m, redirect:'manual'}); console.log(m,p,r.status); }
await s.close();
