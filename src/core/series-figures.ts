/** What the store-wide figures over time count (docs/series.md): named once for the store, the service and the wire. */

/** Transitions counted per topic and slot, named after the verbs. */
export const SERIES_EVENTS = [
  'push',
  'promote',
  'reserve',
  'finish',
  'retry',
  'bury',
  'expire',
  'cancel',
  'redrive',
  'release',
] as const;
export type SeriesEvent = (typeof SERIES_EVENTS)[number];

/** States whose job counts the backlog sample keeps. */
export const BACKLOG_STATES = ['delayed', 'ready', 'reserved', 'dead'] as const;
export type BacklogState = (typeof BACKLOG_STATES)[number];
