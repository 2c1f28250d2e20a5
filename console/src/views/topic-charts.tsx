import { count, span } from '../format.js';
import {
  backlogLines,
  failed,
  latenessLines,
  rateLines,
  stepSpanMs,
  topicSeries,
  volume,
  WINDOWS,
  type SeriesAnswer,
  type TopicSeries,
  type WindowKey,
} from '../series.js';
import { LineChart, type ChartAxis } from './line-chart.js';
import { useLoad } from './use-load.js';
import { WindowPicker } from './window-picker.js';

/** Lateness is read in ms, s or min, whichever keeps the axis short. */
function latenessAxis(series: TopicSeries): ChartAxis {
  const max = Math.max(0, ...series.steps.map((s) => s.lateness.p99Ms ?? 0));
  return max < 1000 ? { unit: 'ms' } : max < 120_000 ? { unit: 's', divisor: 1000 } : { unit: 'min', divisor: 60_000 };
}

/** A topic's totals over the window, in a sentence (and as data attributes). */
function SeriesTotal({ series, window }: { series: TopicSeries; window: WindowKey }) {
  const { counts, lateness } = series.total;
  return (
    <p
      class="series-total"
      data-topic={series.topic}
      data-push={counts['push'] ?? 0}
      data-finish={counts['finish'] ?? 0}
      data-fail={failed(counts)}
      data-reserve={counts['reserve'] ?? 0}
    >
      In the last {WINDOWS[window].label}: {count(counts['push'] ?? 0)} pushed, {count(counts['finish'] ?? 0)} finished,{' '}
      {count(failed(counts))} failed ({count(counts['retry'] ?? 0)} retried, {count(counts['bury'] ?? 0)} buried),{' '}
      {count(counts['reserve'] ?? 0)} reserved
      {lateness.p50Ms !== null && `; lateness p50 ${span(lateness.p50Ms)}, p99 ${span(lateness.p99Ms ?? 0)}`}.
    </p>
  );
}

/**
 * One topic's charts from an answer: push / finish / fail per second, lateness p50 / p99, and the backlog by
 * state; or, when the window holds nothing of it at all, why.
 */
export function SeriesCharts({
  answer,
  series,
  window,
  height,
}: {
  answer: SeriesAnswer;
  series: TopicSeries;
  window: WindowKey;
  height?: number;
}) {
  const last = `the last ${WINDOWS[window].label}`;
  if (volume(series.total.counts) === 0 && series.steps.every((s) => s.backlog === null))
    return (
      <p class="muted series-empty" data-topic={series.topic}>
        Nothing recorded for {series.topic} in {last}: no job of it was pushed, reserved, finished or failed, and no
        sample of its backlog was taken (an instance running the timer counts every topic's jobs each 10 s). The figures
        start with the topic's first job, and are kept 25 hours.
      </p>
    );
  const at = series.steps.map((s) => s.at);
  const common = { at, stepMs: answer.stepMs, from: answer.from, to: answer.to, ...(height ? { height } : {}) };
  const note = (i: number) => {
    const spanMs = stepSpanMs(answer, at[i]!);
    return spanMs < answer.stepMs ? ` (in progress: ${span(spanMs)} of ${span(answer.stepMs)})` : '';
  };
  return (
    <div
      class="charts"
      data-topic={series.topic}
      data-from={answer.from}
      data-to={answer.to}
      data-step-ms={answer.stepMs}
      data-elapsed-ms={answer.elapsedMs}
    >
      <SeriesTotal series={series} window={window} />
      <LineChart
        {...common}
        name="rates"
        title="Jobs per second"
        lines={rateLines(answer, series)}
        axis={{ unit: 'jobs/s' }}
        note={note}
        empty={`No step of ${last} has lasted a second yet.`}
      />
      <LineChart
        {...common}
        name="lateness"
        title="Lateness when reserved"
        lines={latenessLines(series)}
        axis={latenessAxis(series)}
        empty={`No job of ${series.topic} was reserved in ${last}, so there is no lateness to show.`}
      />
      <LineChart
        {...common}
        name="backlog"
        title="Backlog"
        lines={backlogLines(series)}
        axis={{ unit: 'jobs' }}
        empty={`No backlog sample in ${last}: an instance running the timer samples it every 10 s.`}
      />
    </div>
  );
}

/** The topic page's charts over the chosen window, reloaded with the page. */
export function TopicCharts({ topic, window }: { topic: string; window: WindowKey }) {
  const { data, error } = useLoad<SeriesAnswer>(() => topicSeries(topic, window), [topic, window], 5000);
  const series = data?.topics[0];
  return (
    <section id="over-time" data-window={window}>
      <h2>Over time</h2>
      <WindowPicker window={window} />
      {error && <p class="error">{error}</p>}
      {!data && !error && <p class="muted">Loading…</p>}
      {data && series && <SeriesCharts answer={data} series={series} window={window} />}
    </section>
  );
}
