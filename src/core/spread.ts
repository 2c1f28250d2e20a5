/**
 * Spreading (docs/flow-control.md#spreading): a push with `spreadMs` is due at its due time plus an offset in
 * [0, spreadMs) taken from its id alone, so a repeat of the push lands on the same instant and many jobs due
 * at one instant spread evenly over the window. The offset is FNV-1a (32 bits) over the id's UTF-8 bytes,
 * mixed by murmur3's final avalanche so consecutive ids land far apart, modulo spreadMs: any client may
 * compute the same.
 */
export function spreadOffsetMs(id: string, spreadMs: number): number {
  if (spreadMs <= 1) return 0;
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(id)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) % spreadMs;
}
