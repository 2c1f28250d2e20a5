// The resolve hook of record-modules.mjs (it runs on the loader's thread): appends each resolved URL.
import { appendFileSync } from 'node:fs';

let file;
export function initialize(data) {
  file = data.file;
}
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(file, `${resolved.url}\n`);
  return resolved;
}
