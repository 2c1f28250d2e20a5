import { runHttpFuzz } from '../test/fuzz/http-fuzzer.js';
const r = await runHttpFuzz({ port: 7650, requests: Number(process.argv[2] ?? 3000), seed: Number(process.argv[3] ?? 1) });
console.log(JSON.stringify(r, null, 1).slice(0, 12000));
