// A dependency-free SVG of ratios to a peer: one panel per (figure, peer), one row per delayq subject, a bar
// to the median of its per-round ratios and a dot for each round, with a line at 1× (as fast as the peer).

export interface RatioRow {
  label: string;
  byRound: readonly number[];
  median: number;
}

export interface RatioPanel {
  title: string;
  rows: readonly RatioRow[];
}

const W = 520;
const ROW_H = 22;
const M = { left: 250, right: 40, top: 34, bottom: 34 };

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function panel(p: RatioPanel, offsetY: number, maxRatio: number): string {
  const plotW = W - M.left - M.right;
  const x = (r: number) => M.left + (Math.max(0, r) / maxRatio) * plotW;
  const parts = [`<g transform="translate(0,${offsetY})">`];
  parts.push(`<text x="${W / 2}" y="18" text-anchor="middle" font-weight="bold">${esc(p.title)}</text>`);
  const bottom = M.top + p.rows.length * ROW_H;
  for (let tick = 0; tick <= maxRatio + 1e-9; tick += maxRatio > 3 ? 1 : 0.5) {
    const tx = x(tick).toFixed(1);
    const one = Math.abs(tick - 1) < 1e-9;
    parts.push(
      `<line x1="${tx}" y1="${M.top - 4}" x2="${tx}" y2="${bottom}" stroke="${one ? '#c0392b' : '#ddd'}"${one ? ' stroke-width="1.5"' : ''}/>`,
    );
    parts.push(`<text x="${tx}" y="${bottom + 14}" text-anchor="middle">${tick}×</text>`);
  }
  p.rows.forEach((row, i) => {
    const cy = M.top + i * ROW_H + ROW_H / 2;
    parts.push(`<text x="${M.left - 8}" y="${cy + 4}" text-anchor="end">${esc(row.label)}</text>`);
    if (Number.isFinite(row.median))
      parts.push(
        `<rect x="${M.left}" y="${cy - 6}" width="${(x(row.median) - M.left).toFixed(1)}" height="12" fill="#9ec5e8"/>`,
      );
    for (const r of row.byRound.filter(Number.isFinite))
      parts.push(`<circle cx="${x(r).toFixed(1)}" cy="${cy}" r="3" fill="#1f3b57"/>`);
  });
  parts.push(
    `<text x="${W / 2}" y="${bottom + 28}" text-anchor="middle">bar: median of the rounds; dots: each round</text>`,
  );
  parts.push('</g>');
  return parts.join('\n');
}

export function ratioChart(panels: readonly RatioPanel[]): string {
  const all = panels.flatMap((p) => p.rows.flatMap((r) => [...r.byRound, r.median])).filter(Number.isFinite);
  const maxRatio = Math.max(1.5, Math.ceil(Math.max(0, ...all) * 2) / 2);
  let y = 0;
  const drawn = panels.map((p) => {
    const svg = panel(p, y, maxRatio);
    y += M.top + p.rows.length * ROW_H + M.bottom;
    return svg;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${y}" viewBox="0 0 ${W} ${y}" font-family="sans-serif" font-size="11">`,
    `<rect width="${W}" height="${y}" fill="#fff"/>`,
    ...drawn,
    '</svg>',
    '',
  ].join('\n');
}
