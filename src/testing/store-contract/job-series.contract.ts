import { expect } from 'vitest';
import type { ContractContext, ContractTest } from './contract-context.js';
import { SERIES_TIERS } from '../../store/job-series.js';

const T0 = Date.UTC(2026, 0, 1);
const [FINE, COARSE] = [SERIES_TIERS[0]!.slotMs, SERIES_TIERS[1]!.slotMs];

/** The store-wide figures over time (store/job-series.ts), part of the Store contract (store.contract.ts). */
export function jobSeriesContract(test: ContractTest, context: () => ContractContext): void {
  test('series counts add up per topic and slot, in every tier, and read back by topic or for all', async () => {
    const { store, topic, other } = context();
    await store.series.add(
      [
        { topic, at: T0 + 1_000, counts: { push: 2, l3: 1 } },
        { topic, at: T0 + 12_000, counts: { push: 1, finish: 1 } },
        { topic: other, at: T0 + 5_000, counts: { push: 7 } },
      ],
      T0 + 12_000,
    );
    await store.series.add([{ topic, at: T0 + 9_999, counts: { push: 3 } }], T0 + 13_000);
    const fine = await store.series.read({ slotMs: FINE, from: T0, to: T0 + 60_000, topic });
    expect(fine.sort((a, b) => a.at - b.at)).toEqual([
      { topic, at: T0, fields: { push: 5, l3: 1 } },
      { topic, at: T0 + FINE, fields: { push: 1, finish: 1 } },
    ]);
    const coarse = await store.series.read({ slotMs: COARSE, from: T0, to: T0 + COARSE, topic });
    expect(coarse).toEqual([{ topic, at: T0, fields: { push: 6, l3: 1, finish: 1 } }]);
    // Without a topic: every topic with a slot in range (others of a shared server may be there too).
    const all = await store.series.read({ slotMs: FINE, from: T0, to: T0 + FINE });
    const mine = all
      .filter((s) => s.topic === topic || s.topic === other)
      .sort((a, b) => a.topic.localeCompare(b.topic));
    expect(mine.map((s) => [s.topic, s.fields['push']])).toEqual(
      [
        [topic, 5],
        [other, 7],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    // Slots outside [from, to) are not read.
    expect(await store.series.read({ slotMs: FINE, from: T0 + 2 * FINE, to: T0 + 6 * FINE, topic })).toEqual([]);
  });

  test('a backlog sample replaces the earlier one of its slot, beside the counts', async () => {
    const { store, topic } = context();
    const at = T0 + 3 * COARSE;
    await store.series.add([{ topic, at, counts: { reserve: 1 } }], at);
    await store.series.setBacklog(at, [{ topic, counts: { delayed: 9, ready: 1, reserved: 0, dead: 0 } }], at);
    await store.series.setBacklog(
      at + FINE,
      [{ topic, counts: { delayed: 4, ready: 2, reserved: 1, dead: 3 } }],
      at + FINE,
    );
    const fine = await store.series.read({ slotMs: FINE, from: at, to: at + 2 * FINE, topic });
    expect(fine.sort((a, b) => a.at - b.at).map((s) => s.fields)).toEqual([
      { reserve: 1, 'b:delayed': 9, 'b:ready': 1, 'b:reserved': 0, 'b:dead': 0 },
      { 'b:delayed': 4, 'b:ready': 2, 'b:reserved': 1, 'b:dead': 3 },
    ]);
    const [coarse] = await store.series.read({ slotMs: COARSE, from: at, to: at + COARSE, topic });
    expect(coarse!.fields).toEqual({ reserve: 1, 'b:delayed': 4, 'b:ready': 2, 'b:reserved': 1, 'b:dead': 3 });
  });

  test('the backlog sample of a slot is claimed once on a shared store', async () => {
    const { store } = context();
    // A slot of its own per run (a shared server keeps claims for two slots).
    const at = T0 + Math.floor(Math.random() * 1e6) * FINE;
    expect(await store.series.claimBacklogSample(at)).toBe(true);
    expect(await store.series.claimBacklogSample(at + 1)).toBe(!store.capabilities.shared);
    expect(await store.series.claimBacklogSample(at + FINE)).toBe(true);
  });
}
