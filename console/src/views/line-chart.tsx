import { short, timeTicks, valueTicks, zoneName } from '../chart-scale.js';
import { shownZone, wallTime } from '../format.js';
import type { Line } from '../series.js';

export interface ChartAxis {
  /** The unit the axis is read in, e.g. `jobs/s`, `ms`. */
  unit: string;
  /** Raw values are divided by this for the axis and the hover text (ms shown in s: 1000). */
  divisor?: number;
}

export interface LineChartProps {
  /** The chart's name, as `data-chart` (tests and styles find it by it). */
  name: string;
  title: string;
  /** Step starts, one per value of every line. */
  at: number[];
  stepMs: number;
  /** The x range: start of the first step to end of the last. */
  from: number;
  to: number;
  lines: Line[];
  axis: ChartAxis;
  /** More to say about a step when hovered (e.g. that it is still in progress). */
  note?: (index: number) => string;
  /** What to say instead of drawing when no line has a value. */
  empty: string;
  height?: number;
}

const WIDTH = 384;
const MARGIN = { left: 40, right: 12, top: 18, bottom: 34 };

/** The path through a line's values, broken where a value is missing; lone values are drawn as dots. */
function trace(values: (number | null)[], x: (i: number) => number, y: (v: number) => number) {
  let d = '';
  const dots: [number, number][] = [];
  values.forEach((v, i) => {
    if (v === null) return;
    const joined = values[i - 1] != null;
    d += `${joined ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`;
    if (!joined && values[i + 1] == null) dots.push([x(i), y(v)]);
  });
  return { d, dots };
}

/**
 * A small SVG line chart over time: one line per figure, steps on the x axis in the shown zone, a round value
 * axis with its unit. Each step is a hover target whose text gives every line's value, and carries the raw
 * values as `data-<line>` (what the tests compare with the API).
 */
export function LineChart(props: LineChartProps) {
  const { name, title, at, stepMs, from, to, lines, axis, note, empty } = props;
  const height = props.height ?? 190;
  const divisor = axis.divisor ?? 1;
  const zone = shownZone();
  const legend = (
    <div class="chart-head">
      <strong>{title}</strong>
      {lines.map((l) => (
        <span class="legend">
          <i class={`swatch ${l.key}`} />
          {l.label}
        </span>
      ))}
    </div>
  );
  const values = lines.flatMap((l) => l.values).filter((v): v is number => v !== null);
  if (values.length === 0)
    return (
      <figure class="chart" data-chart={name} data-empty="true">
        {legend}
        <p class="muted chart-empty">{empty}</p>
      </figure>
    );

  const ticks = valueTicks(Math.max(...values) / divisor);
  const top = ticks.at(-1)!;
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = height - MARGIN.top - MARGIN.bottom;
  const xOf = (t: number) => MARGIN.left + ((t - from) / (to - from)) * plotW;
  const x = (i: number) => xOf(at[i]! + stepMs / 2);
  const y = (v: number) => MARGIN.top + plotH - (v / divisor / top) * plotH;
  const clock = (t: number) => wallTime(t, zone).slice(11, 19);
  const stepW = (stepMs / (to - from)) * plotW;
  return (
    <figure class="chart" data-chart={name}>
      {legend}
      <svg width={WIDTH} height={height} role="img" aria-label={`${title}, ${axis.unit}`}>
        {ticks.map((v) => (
          <g class="tick">
            <line x1={MARGIN.left} x2={WIDTH - MARGIN.right} y1={y(v * divisor)} y2={y(v * divisor)} />
            <text x={MARGIN.left - 4} y={y(v * divisor) + 3} text-anchor="end">
              {short(v)}
            </text>
          </g>
        ))}
        <text class="unit" x={4} y={10}>
          {axis.unit}
        </text>
        {timeTicks(from, to, zone).map((t) => (
          <g class="tick time" data-at={t.at}>
            <line x1={xOf(t.at)} x2={xOf(t.at)} y1={MARGIN.top + plotH} y2={MARGIN.top + plotH + 4} />
            <text
              x={xOf(t.at)}
              y={MARGIN.top + plotH + 15}
              text-anchor={xOf(t.at) > WIDTH - MARGIN.right - 14 ? 'end' : 'middle'}
            >
              {t.label}
            </text>
          </g>
        ))}
        <text class="unit" x={MARGIN.left + plotW / 2} y={height - 3} text-anchor="middle">
          time ({zoneName(from, zone)})
        </text>
        {lines.map((l) => {
          const { d, dots } = trace(l.values, x, y);
          return (
            <g class={`line ${l.key}`} data-line={l.key}>
              <path d={d} />
              {dots.map(([cx, cy]) => (
                <circle cx={cx} cy={cy} r={2} />
              ))}
            </g>
          );
        })}
        {at.map((start, i) => (
          <rect
            class="step"
            x={x(i) - stepW / 2}
            y={MARGIN.top}
            width={stepW}
            height={plotH}
            data-at={start}
            {...Object.fromEntries(lines.map((l) => [`data-${l.key}`, l.values[i] ?? undefined]))}
          >
            <title>
              {`${clock(start)}–${clock(start + stepMs)} ${zone === 'UTC' ? 'UTC' : zone}${note?.(i) ?? ''}\n` +
                lines
                  .map(
                    (l) => `${l.label}: ${l.values[i] == null ? '—' : `${short(l.values[i] / divisor)} ${axis.unit}`}`,
                  )
                  .join('\n')}
            </title>
          </rect>
        ))}
      </svg>
    </figure>
  );
}
