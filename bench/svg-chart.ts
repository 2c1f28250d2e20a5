// A dependency-free SVG of lateness distributions: one panel per scenario, one cumulative curve per system
// (x: lateness on a log scale, y: share of jobs delivered at most that late). Left and steep is good.

export interface Series {
  name: string;
  /** Lateness of every job, ms, sorted ascending. */
  samples: readonly number[];
}

export interface Panel {
  title: string;
  series: readonly Series[];
}

const COLORS = ['#1b7f3b', '#2f6fd6', '#8e44ad', '#d35400', '#c0392b', '#7f8c8d', '#16a085'];
const W = 560;
const H = 330;
const M = { left: 52, right: 16, top: 30, bottom: 100 };
const X_MIN_MS = 0.5;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function xScale(maxMs: number): (ms: number) => number {
  const lo = Math.log10(X_MIN_MS);
  const hi = Math.log10(Math.max(maxMs, 10));
  return (ms) => M.left + ((Math.log10(Math.max(ms, X_MIN_MS)) - lo) / (hi - lo)) * (W - M.left - M.right);
}

const yScale = (share: number) => M.top + (1 - share) * (H - M.top - M.bottom);

/** At most ~200 points per curve: the CDF sampled at evenly spaced ranks, plus the last job. */
function curve(samples: readonly number[], x: (ms: number) => number): string {
  const n = samples.length;
  if (n === 0) return '';
  const step = Math.max(1, Math.floor(n / 200));
  const points: string[] = [];
  for (let i = 0; i < n; i += step) points.push(`${x(samples[i]!).toFixed(1)},${yScale((i + 1) / n).toFixed(1)}`);
  points.push(`${x(samples[n - 1]!).toFixed(1)},${yScale(1).toFixed(1)}`);
  return points.join(' ');
}

function panel(p: Panel, offsetX: number, maxMs: number, colorOf: (name: string) => string): string {
  const x = xScale(maxMs);
  const parts: string[] = [`<g transform="translate(${offsetX},0)">`];
  parts.push(`<text x="${W / 2}" y="18" text-anchor="middle" font-weight="bold">${esc(p.title)}</text>`);
  for (let decade = 1; decade <= maxMs * 10; decade *= 10) {
    const gx = x(decade).toFixed(1);
    parts.push(`<line x1="${gx}" y1="${M.top}" x2="${gx}" y2="${H - M.bottom}" stroke="#ddd"/>`);
    parts.push(
      `<text x="${gx}" y="${H - M.bottom + 16}" text-anchor="middle">${decade >= 1000 ? `${decade / 1000} s` : `${decade} ms`}</text>`,
    );
    if (x(decade * 10) > W - M.right + 1) break;
  }
  for (const share of [0, 0.25, 0.5, 0.75, 0.9, 0.99]) {
    const gy = yScale(share).toFixed(1);
    parts.push(`<line x1="${M.left}" y1="${gy}" x2="${W - M.right}" y2="${gy}" stroke="#eee"/>`);
    parts.push(`<text x="${M.left - 6}" y="${gy}" text-anchor="end" dominant-baseline="middle">${share * 100}%</text>`);
  }
  parts.push(
    `<rect x="${M.left}" y="${M.top}" width="${W - M.left - M.right}" height="${H - M.top - M.bottom}" fill="none" stroke="#999"/>`,
  );
  parts.push(
    `<text x="${W / 2}" y="${H - M.bottom + 34}" text-anchor="middle">lateness (delivery − due), log scale</text>`,
  );
  p.series.forEach((s, i) => {
    const color = colorOf(s.name);
    const points = curve(s.samples, x);
    if (points) parts.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${points}"/>`);
    const lx = M.left + (i % 2) * 250;
    const ly = H - M.bottom + 54 + Math.floor(i / 2) * 16;
    parts.push(`<line x1="${lx}" y1="${ly - 4}" x2="${lx + 18}" y2="${ly - 4}" stroke="${color}" stroke-width="3"/>`);
    parts.push(`<text x="${lx + 24}" y="${ly}">${esc(s.name)}</text>`);
  });
  parts.push('</g>');
  return parts.join('\n');
}

export function latenessChart(panels: readonly Panel[]): string {
  const maxMs = Math.max(10, ...panels.flatMap((p) => p.series.map((s) => s.samples[s.samples.length - 1] ?? 0)));
  const width = W * panels.length;
  // One colour per system across all panels, in order of first appearance.
  const names = [...new Set(panels.flatMap((p) => p.series.map((s) => s.name)))];
  const colorOf = (name: string) => COLORS[names.indexOf(name) % COLORS.length]!;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${H}" viewBox="0 0 ${width} ${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${H}" fill="#fff"/>`,
    ...panels.map((p, i) => panel(p, i * W, maxMs, colorOf)),
    '</svg>',
    '',
  ].join('\n');
}
