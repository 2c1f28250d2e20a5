import { loadConfig } from '../src/config.js';
import { createService } from '../src/create-service.js';
import { buildApp } from '../src/server/app.js';
const config = loadConfig({ env: {}, overrides: { sqlite: { path: ':memory:' } } });
const service = createService(config); await service.start();
const app = await buildApp(service, config);
await app.ready();
const cases: any[] = [
 { method: 'GET', url: '/v1/jobs/%ZZ' }, { method: 'GET', url: '/v1/jobs?topic=%ZZ' }, { method: 'GET', url: '/v1/jobs?topic=a&topic=b' },
 { method: 'POST', url: '/v1/jobs', payload: '{"topic":"a","body":' , headers: {'content-type':'application/json'}},
 { method: 'POST', url: '/v1/jobs', payload: 'x=1', headers: {'content-type':'application/x-www-form-urlencoded'}},
 { method: 'POST', url: '/v1/jobs', payload: '{"topic":"a"}', headers: {'content-type':'application/json; charset=utf-16'}},
 { method: 'PUT', url: '/v1/jobs' }, { method: 'OPTIONS', url: '/v1/jobs' }, { method: 'DELETE', url: '/v1/jobs/x' },
 { method: 'POST', url: '/v1/jobs', payload: '{"topic":"a","__proto__":{"x":1}}', headers: {'content-type':'application/json'}},
 { method: 'POST', url: '/v1/jobs', payload: '{"topic":"a","constructor":{"prototype":{"x":1}}}', headers: {'content-type':'application/json'}},
 { method: 'POST', url: '/v1/jobs', payload: '['.repeat(5000)+']'.repeat(5000), headers: {'content-type':'application/json'}},
 { method: 'POST', url: '/v1/jobs', payload: JSON.stringify({topic:'a', body: JSON.parse('['.repeat(3000)+']'.repeat(3000))}), headers: {'content-type':'application/json'}},
 { method: 'GET', url: '/get/%ZZ' }, { method: 'POST', url: '/youzan', payload: '{', headers: {'content-type':'application/json'}},
 { method: 'POST', url: '/push', payload: '{"topic":"a","createTime":9007199254740991,"delay":9007199254740991}', headers: {'content-type':'application/json'}},
 { method: 'POST', url: '/push', payload: '{"topic":"a","id":1e300}', headers: {'content-type':'application/json'}},
 { method: 'POST', url: '/v1/reserve', payload: '{"topics":["a"],"waitMs":1.5}', headers: {'content-type':'application/json'}},
 { method: 'POST', url: '/youzan', payload: '{"command":"add","topic":"a","delay":1e300}', headers: {'content-type':'application/json'}},
 { method: 'POST', url: '/youzan', payload: '{"command":"add","topic":"a","delay":"1e300"}', headers: {'content-type':'application/json'}},
];
for (const c of cases) { const r = await app.inject(c); console.log(c.method, c.url.slice(0,40), String(c.payload ?? '').slice(0,40), '→', r.statusCode, r.body.slice(0, 220)); }
await app.close(); await service.close();
