import { count } from '../format.js';
import { href } from '../router.js';
import { failed, topicSeries, volume, windowTotals, WINDOWS, type SeriesAnswer, type WindowKey } from '../series.js';
import { SeriesCharts } from './topic-charts.js';
import { useLoad } from './use-load.js';
import { WindowPicker } from './window-picker.js';

/** How many of the busiest topics get their charts on the overview. */
const TOP = 5;

interface OverviewSeries {
  /** Every visible topic's totals over the window. */
  totals: SeriesAnswer;
  /** The busiest topics' figures step by step, busiest first. */
  busiest: SeriesAnswer[];
}

/** Busiest first (most transitions in the window), then by name. */
const byVolume = (totals: SeriesAnswer): string[] =>
  totals.topics
    .map((t) => ({ topic: t.topic, volume: volume(t.total.counts) }))
    .filter((t) => t.volume > 0)
    .sort((a, b) => b.volume - a.volume || (a.topic < b.topic ? -1 : 1))
    .map((t) => t.topic);

/**
 * The overview's figures over time: every topic's transitions summed over the window, then the charts of
 * the five busiest topics, each its own (lateness quantiles of several topics do not add up, and one read
 * of every topic's steps would grow with the number of topics).
 */
export function OverviewCharts({ window }: { window: WindowKey }) {
  const { data, error } = useLoad<OverviewSeries>(
    async () => {
      const totals = await windowTotals(window);
      const busiest = await Promise.all(
        byVolume(totals)
          .slice(0, TOP)
          .map((t) => topicSeries(t, window)),
      );
      return { totals, busiest };
    },
    [window],
    5000,
  );
  const last = `the last ${WINDOWS[window].label}`;
  const sum = (event: string) => data?.totals.topics.reduce((n, t) => n + (t.total.counts[event] ?? 0), 0) ?? 0;
  const perSecond = (n: number) => (data ? (n / Math.max(1, data.totals.elapsedMs / 1000)).toFixed(2) : '');
  const fails = data?.totals.topics.reduce((n, t) => n + failed(t.total.counts), 0) ?? 0;
  return (
    <section id="over-time" data-window={window}>
      <h2>Over time</h2>
      <WindowPicker window={window} />
      {error && <p class="error">{error}</p>}
      {!data && !error && <p class="muted">Loading…</p>}
      {data && data.busiest.length === 0 && (
        <p class="muted series-empty">
          Nothing recorded in {last}: no job was pushed, reserved, finished or failed in any topic you may see. Every
          instance of the store counts each transition as it happens, so the charts fill in with the first jobs; the
          figures are kept 25 hours.
        </p>
      )}
      {data && data.busiest.length > 0 && (
        <>
          <p
            id="overview-total"
            data-topics={data.totals.topics.length}
            data-push={sum('push')}
            data-finish={sum('finish')}
            data-fail={fails}
            data-reserve={sum('reserve')}
          >
            All {count(data.totals.topics.length)} topics in {last}: {count(sum('push'))} pushed (
            {perSecond(sum('push'))}/s), {count(sum('finish'))} finished ({perSecond(sum('finish'))}/s), {count(fails)}{' '}
            failed, {count(sum('reserve'))} reserved. The {data.busiest.length} busiest:
          </p>
          {data.busiest.map((answer) => {
            const series = answer.topics[0]!;
            return (
              <div class="busiest" data-topic={series.topic}>
                <h3>
                  <a href={href(`/topic/${series.topic}`, { window })}>{series.topic}</a>
                </h3>
                <SeriesCharts answer={answer} series={series} window={window} height={150} />
              </div>
            );
          })}
        </>
      )}
    </section>
  );
}
