import { Redis } from 'ioredis';
import { Unpackr } from 'msgpackr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  arrayBytes,
  intBytes,
  strBytes,
  writeArray,
  writeFalse,
  writeInt,
  writeStr,
} from '../../src/store/redis/msgpack-write.js';

const INTS = [
  0,
  1,
  127,
  128,
  255,
  256,
  65_535,
  65_536,
  2 ** 32 - 1,
  2 ** 32,
  4_102_444_800_123,
  Number.MAX_SAFE_INTEGER,
  -1,
  -32,
  -33,
  -128,
  -129,
  -32_768,
  -32_769,
  -(2 ** 31),
  -(2 ** 31) - 1,
  -4_102_444_800_123,
];
const STRINGS = [
  '',
  'a',
  'x'.repeat(31),
  'x'.repeat(32),
  'é'.repeat(127),
  'é'.repeat(128),
  '☃'.repeat(21_845),
  '𝄞'.repeat(16_384),
];

/** Every value above in one array, as pushArgs writes its meta: sized first, then written. */
function encodeAll(): Buffer {
  const n = INTS.length + STRINGS.length + 1;
  let size = arrayBytes(n) + 1;
  for (const i of INTS) size += intBytes(i);
  for (const s of STRINGS) size += strBytes(Buffer.byteLength(s));
  const b = Buffer.alloc(size);
  let pos = writeArray(b, 0, n);
  for (const i of INTS) pos = writeInt(b, pos, i);
  for (const s of STRINGS) pos = writeStr(b, pos, s, Buffer.byteLength(s));
  pos = writeFalse(b, pos);
  expect(pos).toBe(size); // the sizes agree with what is written
  return b;
}

let redis: Redis;
beforeAll(() => {
  redis = new Redis({ host: '127.0.0.1', port: 6379 });
});
afterAll(() => redis.disconnect());

describe('the msgpack writer push.lua reads', () => {
  it('writes integers, strings and false at every width boundary as a msgpack decoder reads them', () => {
    expect(new Unpackr({ int64AsType: 'number' }).unpack(encodeAll())).toEqual([...INTS, ...STRINGS, false]);
  });

  it("is read exactly by Redis's cmsgpack, big timestamps included", async () => {
    // Each value back as text, so nothing is lost to a Lua number → RESP integer conversion.
    const script = `local t = cmsgpack.unpack(ARGV[1]); local out = {}
      for i = 1, #t do out[i] = type(t[i]) == 'number' and string.format('%.0f', t[i]) or tostring(t[i]) end
      return out`;
    const reply = (await redis.eval(script, 0, encodeAll())) as string[];
    expect(reply).toEqual([...INTS.map(String), ...STRINGS, 'false']);
  });

  it('uses an array header wide enough for any count', () => {
    for (const n of [0, 15, 16, 65_535, 65_536]) {
      const b = Buffer.alloc(arrayBytes(n));
      expect(writeArray(b, 0, n)).toBe(b.length);
    }
  });
});
