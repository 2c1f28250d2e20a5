// One figure's rows (per-round values, median, spread, ratios to each peer by round) and its markdown table.
import type { Figure } from './figure.js';
import { fmt } from './lib.js';
import { finiteMedian, ratiosByRound, type Results } from './results.js';

/** Rounds whose values differ by more than this share of their median cannot be reproduced within it. */
export const REPRODUCIBLE_PCT = 15;

export interface PeerRatio {
  peer: string;
  /** this ÷ peer, by round (NaN where either has no value). */
  byRound: number[];
  median: number;
}

export interface Row {
  label: string;
  subject: string;
  values: (number | undefined)[];
  median: number;
  /** (highest − lowest) ÷ median, %; undefined with fewer than 2 rounds. */
  spreadPct: number | undefined;
  ratios: PeerRatio[];
  also: Record<string, number>;
}

/** The peers, and the floors a figure divides by, go last. */
const isPeerLike = (figure: Figure, subject: string) =>
  subject.startsWith('BullMQ') || subject === 'beanstalkd' || figure.peers.includes(subject);

/** The peer's values by round, from the first of the figure's scenarios that has it. */
function peerValues(figure: Figure, results: Results, peer: string): (number | undefined)[] {
  for (const scenario of figure.scenarios) {
    const v = results.perRound(scenario, peer, figure.metric);
    if (v.length) return v;
  }
  return [];
}

export function figureRows(figure: Figure, results: Results): Row[] {
  const mixed = figure.scenarios.some((s) => s.startsWith('api-'));
  const rows: Row[] = [];
  for (const scenario of figure.scenarios) {
    for (const subject of results.subjects(scenario)) {
      if (figure.rows && !figure.rows.test(subject)) continue;
      const values = results.perRound(scenario, subject, figure.metric);
      const present = values.filter((v): v is number => v !== undefined);
      if (present.length === 0) continue;
      const median = finiteMedian(present);
      const inProcess = mixed && !scenario.startsWith('api-') && /^delayq · [^·]+$/.test(subject);
      rows.push({
        label: inProcess ? `${subject} · in-process` : subject,
        subject,
        values,
        median,
        spreadPct:
          present.length > 1 && median !== 0
            ? (100 * (Math.max(...present) - Math.min(...present))) / Math.abs(median)
            : undefined,
        ratios: figure.peers
          .filter((peer) => peer !== subject)
          .map((peer) => {
            const meaningless = Math.abs(median) < (figure.ratioFloor ?? 0);
            const byRound = meaningless ? [] : ratiosByRound(values, peerValues(figure, results, peer));
            return { peer, byRound, median: finiteMedian(byRound) };
          }),
        also: Object.fromEntries(
          (figure.also ?? []).map((c) => [c.metric, results.median(scenario, subject, c.metric)] as const),
        ),
      });
    }
  }
  // delayq's rows first, the peers last, each group in the order it was measured.
  return [...rows.filter((r) => !isPeerLike(figure, r.subject)), ...rows.filter((r) => isPeerLike(figure, r.subject))];
}

export function roundsOf(rows: readonly Row[]): number {
  return Math.max(0, ...rows.map((r) => r.values.length));
}

/** "1.21×" for one round, "1.10, 1.21, 1.22 → 1.21×" for several; "–" where there is none. */
export function ratioCell(byRound: readonly number[], median: number): string {
  if (!byRound.some(Number.isFinite)) return '–';
  const each = byRound.map((r) => (Number.isFinite(r) ? fmt(r, 2) : '–'));
  return byRound.length === 1 ? `${fmt(median, 2)}×` : `${each.join(', ')} → ${fmt(median, 2)}×`;
}

export function spreadCell(spreadPct: number | undefined): string {
  if (spreadPct === undefined) return '–';
  return `${fmt(spreadPct)} %${spreadPct > REPRODUCIBLE_PCT ? ' ⚠' : ''}`;
}

export function figureTable(figure: Figure, rows: readonly Row[]): string {
  const rounds = roundsOf(rows);
  const digits = figure.digits ?? 0;
  const peers = figure.peers.filter((p) => rows.some((r) => r.ratios.some((x) => x.peer === p && x.byRound.length)));
  const head = [
    'subject',
    ...Array.from({ length: rounds }, (_, i) => `round ${i + 1}`),
    `median, ${figure.unit}`,
    'max − min',
    ...peers.map((p) => `÷ ${p}, by round → median`),
    ...(figure.also ?? []).map((c) => `${c.header} (median)`),
  ];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => ' --- ').join('|')}|`];
  for (const row of rows) {
    const cells = [
      row.label,
      ...Array.from({ length: rounds }, (_, i) => {
        const v = row.values[i];
        return v === undefined ? '–' : fmt(v, digits);
      }),
      fmt(row.median, digits),
      spreadCell(row.spreadPct),
      ...peers.map((p) => {
        const r = row.ratios.find((x) => x.peer === p);
        return r ? ratioCell(r.byRound, r.median) : '';
      }),
      ...(figure.also ?? []).map((c) => fmt(row.also[c.metric] ?? Number.NaN, c.digits ?? 0).replace('n/a', '–')),
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}
