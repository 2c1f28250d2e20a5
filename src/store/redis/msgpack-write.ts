/*
 * Writes the msgpack subset push.lua reads with cmsgpack (arrays, strings, integers, false) straight into
 * a buffer the caller sized with the *Bytes functions, so a push's values land in place without a general
 * encoder's copy.
 */

/** Bytes of a msgpack string whose UTF-8 form is `bytes` long: fixstr, str8, str16 or str32, then the text. */
export function strBytes(bytes: number): number {
  return (bytes < 32 ? 1 : bytes < 0x100 ? 2 : bytes < 0x10000 ? 3 : 5) + bytes;
}

export function writeStr(b: Buffer, pos: number, text: string, bytes: number): number {
  if (bytes < 32) b[pos++] = 0xa0 | bytes;
  else if (bytes < 0x100) {
    b[pos++] = 0xd9;
    b[pos++] = bytes;
  } else if (bytes < 0x10000) {
    b[pos++] = 0xda;
    pos = b.writeUInt16BE(bytes, pos);
  } else {
    b[pos++] = 0xdb;
    pos = b.writeUInt32BE(bytes, pos);
  }
  return bytes === 0 ? pos : pos + b.write(text, pos, bytes, 'utf8');
}

export function writeFalse(b: Buffer, pos: number): number {
  b[pos] = 0xc2;
  return pos + 1;
}

/** Bytes of a msgpack integer (safe integers only: epoch ms, priorities, lengths). */
export function intBytes(n: number): number {
  if (n >= 0) return n < 0x80 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : n < 0x100000000 ? 5 : 9;
  return n >= -32 ? 1 : n >= -0x80 ? 2 : n >= -0x8000 ? 3 : n >= -0x80000000 ? 5 : 9;
}

export function writeInt(b: Buffer, pos: number, n: number): number {
  if (n >= 0) {
    if (n < 0x80) b[pos++] = n;
    else if (n < 0x100) {
      b[pos++] = 0xcc;
      b[pos++] = n;
    } else if (n < 0x10000) {
      b[pos++] = 0xcd;
      pos = b.writeUInt16BE(n, pos);
    } else if (n < 0x100000000) {
      b[pos++] = 0xce;
      pos = b.writeUInt32BE(n, pos);
    } else {
      b[pos++] = 0xcf; // uint64 as two halves: epoch ms are past 32 bits, and BigInt costs more
      pos = b.writeUInt32BE(Math.floor(n / 0x100000000), pos);
      pos = b.writeUInt32BE(n % 0x100000000, pos);
    }
  } else if (n >= -32) b[pos++] = n & 0xff;
  else if (n >= -0x80) {
    b[pos++] = 0xd0;
    pos = b.writeInt8(n, pos);
  } else if (n >= -0x8000) {
    b[pos++] = 0xd1;
    pos = b.writeInt16BE(n, pos);
  } else if (n >= -0x80000000) {
    b[pos++] = 0xd2;
    pos = b.writeInt32BE(n, pos);
  } else {
    b[pos++] = 0xcb; // float64: exact for safe integers
    pos = b.writeDoubleBE(n, pos);
  }
  return pos;
}

/** A msgpack array header for `n` items (array16 or array32: the count is not known to be small). */
export function arrayBytes(n: number): number {
  return n < 16 ? 1 : n < 0x10000 ? 3 : 5;
}

export function writeArray(b: Buffer, pos: number, n: number): number {
  if (n < 16) b[pos++] = 0x90 | n;
  else if (n < 0x10000) {
    b[pos++] = 0xdc;
    pos = b.writeUInt16BE(n, pos);
  } else {
    b[pos++] = 0xdd;
    pos = b.writeUInt32BE(n, pos);
  }
  return pos;
}
