// A dependency-free SVG line chart for the scale page: x = the backlogs (evenly spaced, labelled), y = one
// figure from 0, one line per shape with a dot per measured backlog; a backlog a shape lacks breaks its line.

export interface LineSeries {
  name: string;
  /** One value per x label; undefined where none was measured. */
  values: readonly (number | undefined)[];
}

const COLORS = ['#1b7f3b', '#2f6fd6', '#8e44ad', '#d35400', '#c0392b', '#7f8c8d', '#16a085'];
const W = 560;
const H = 300;
const M = { left: 64, right: 16, top: 30, bottom: 86 };

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A round step for about five grid lines up to `max`. */
function step(max: number): number {
  const raw = max / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((k) => k * magnitude).find((s) => s >= raw) ?? raw;
}

const label = (v: number) =>
  v >= 1e6 ? `${+(v / 1e6).toFixed(2)}M` : v >= 1e3 ? `${+(v / 1e3).toFixed(2)}k` : `${+v.toFixed(2)}`;

export function lineChart(
  title: string,
  unit: string,
  xLabels: readonly string[],
  series: readonly LineSeries[],
): string {
  const all = series.flatMap((s) => s.values.filter((v): v is number => v !== undefined && Number.isFinite(v)));
  const top = Math.max(...all, 0) || 1;
  const dy = step(top);
  const yMax = Math.ceil(top / dy) * dy;
  const x = (i: number) => M.left + (xLabels.length < 2 ? 0.5 : i / (xLabels.length - 1)) * (W - M.left - M.right);
  const y = (v: number) => M.top + (1 - v / yMax) * (H - M.top - M.bottom);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${W / 2}" y="18" text-anchor="middle" font-weight="bold">${esc(title)}</text>`,
  ];
  for (let v = 0; v <= yMax + dy / 2; v += dy) {
    const gy = y(v).toFixed(1);
    parts.push(`<line x1="${M.left}" y1="${gy}" x2="${W - M.right}" y2="${gy}" stroke="#eee"/>`);
    parts.push(`<text x="${M.left - 6}" y="${gy}" text-anchor="end" dominant-baseline="middle">${label(v)}</text>`);
  }
  parts.push(
    `<text transform="translate(14,${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">${esc(unit)}</text>`,
  );
  xLabels.forEach((l, i) => {
    const gx = x(i).toFixed(1);
    parts.push(`<line x1="${gx}" y1="${M.top}" x2="${gx}" y2="${H - M.bottom}" stroke="#f4f4f4"/>`);
    parts.push(`<text x="${gx}" y="${H - M.bottom + 16}" text-anchor="middle">${esc(l)}</text>`);
  });
  parts.push(`<text x="${W / 2}" y="${H - M.bottom + 32}" text-anchor="middle">jobs pending (backlog)</text>`);
  series.forEach((s, k) => {
    const color = COLORS[k % COLORS.length]!;
    let run: string[] = [];
    const flush = () => {
      if (run.length > 1)
        parts.push(`<polyline points="${run.join(' ')}" fill="none" stroke="${color}" stroke-width="2"/>`);
      run = [];
    };
    s.values.forEach((v, i) => {
      if (v === undefined || !Number.isFinite(v)) return flush();
      const point = `${x(i).toFixed(1)},${y(v).toFixed(1)}`;
      run.push(point);
      parts.push(`<circle cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="3" fill="${color}"/>`);
    });
    flush();
    const ly = H - M.bottom + 48 + Math.floor(k / 2) * 14;
    const lx = M.left + (k % 2) * ((W - M.left) / 2);
    parts.push(`<line x1="${lx}" y1="${ly - 4}" x2="${lx + 18}" y2="${ly - 4}" stroke="${color}" stroke-width="3"/>`);
    parts.push(`<text x="${lx + 24}" y="${ly}">${esc(s.name)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}
