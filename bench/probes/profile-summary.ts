// Where a V8 CPU profile's time went: self time per function and per file/package, top N.
// Usage: npx tsx bench/probes/profile-summary.ts FILE.cpuprofile [TOP=25]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-summary.ts FILE.cpuprofile [TOP]');
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

/** node_modules/<pkg>, src/<file>, node:<internal>, or (program)/(garbage collector)/(idle). */
function place(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1]!;
  const own = /\/(dist|src)\/(.+)$/.exec(url);
  if (own) return `${own[1]}/${own[2]}`;
  return url.startsWith('node:') ? url : url.replace(/^.*\//, '');
}

const fns = new Map<string, number>();
const places = new Map<string, number>();
for (const [id, us] of selfUs) {
  const { callFrame } = byId.get(id)!;
  const where = place(callFrame.url, callFrame.functionName);
  const key = `${callFrame.functionName || '(anonymous)'}  ${where}:${callFrame.lineNumber + 1}`;
  fns.set(key, (fns.get(key) ?? 0) + us);
  places.set(where, (places.get(where) ?? 0) + us);
}
const show = (title: string, map: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((us / total) * 100).toFixed(1).padStart(5)} %  ${key}`);
  }
};
console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled`);
show('self time by file or package', places);
show('self time by function', fns);
