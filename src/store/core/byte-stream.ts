// The byte stream packed books are written in and read from: bytes, varints, zigzag integers
// and bit-packed values (book-codec.ts).

/** Writes bytes, varints, zigzag integers and packed bits into a growing buffer. */
export class ByteWriter {
  buf = new Uint8Array(256);
  pos = 0;
  private acc = 0;
  private bits = 0;

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.pos + n));
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.pos++] = b;
  }

  varint(v: number): void {
    while (v >= 128) {
      this.byte((v % 128) | 128);
      v = Math.floor(v / 128);
    }
    this.byte(v);
  }

  zigzag(v: number): void {
    this.varint(v < 0 ? -2 * v - 1 : 2 * v);
  }

  /** w bits of v (v < 2^53), low bits first; values below 2^53 split in 26-bit halves. */
  bitsOf(v: number, w: number): void {
    // Sizes of a few million shares in hundredths: one shift, no float steps.
    if (w <= 24) {
      this.acc |= v << this.bits;
      this.bits += w;
      while (this.bits >= 8) {
        this.byte(this.acc & 255);
        this.acc >>>= 8;
        this.bits -= 8;
      }
      return;
    }
    while (w > 0) {
      const take = Math.min(w, 26 - 8);
      const part = v % 2 ** take;
      v = Math.floor(v / 2 ** take);
      w -= take;
      this.acc += part * 2 ** this.bits;
      this.bits += take;
      while (this.bits >= 8) {
        this.byte(this.acc & 255);
        this.acc = Math.floor(this.acc / 256);
        this.bits -= 8;
      }
    }
  }

  align(): void {
    if (this.bits > 0) this.byte(this.acc & 255);
    this.acc = 0;
    this.bits = 0;
  }
}

/** Reads what ByteWriter wrote in buf[pos, end); `pos` moves along. */
export class ByteReader {
  private acc = 0;
  private bits = 0;
  constructor(
    private buf: Uint8Array,
    public pos = 0,
    private end = buf.length,
  ) {}

  /** Use to read other bytes with the same reader (a decoder called per row allocates none). */
  reset(buf: Uint8Array, pos: number, end: number): this {
    this.buf = buf;
    this.pos = pos;
    this.end = end;
    this.acc = 0;
    this.bits = 0;
    return this;
  }

  byte(): number {
    if (this.pos >= this.end) throw new RangeError('packed orderbook ends early');
    return this.buf[this.pos++]!;
  }

  varint(): number {
    let v = 0;
    let mul = 1;
    for (;;) {
      const b = this.byte();
      v += (b & 127) * mul;
      if (b < 128) return v;
      mul *= 128;
    }
  }

  zigzag(): number {
    const v = this.varint();
    return v % 2 === 1 ? -(v + 1) / 2 : v / 2;
  }

  bitsOf(w: number): number {
    if (w <= 24) {
      while (this.bits < w) {
        this.acc |= this.byte() << this.bits;
        this.bits += 8;
      }
      const v = this.acc & ((1 << w) - 1);
      this.acc >>>= w;
      this.bits -= w;
      return v;
    }
    let v = 0;
    let mul = 1;
    while (w > 0) {
      if (this.bits === 0) {
        this.acc = this.byte();
        this.bits = 8;
      }
      const take = Math.min(w, this.bits);
      v += (this.acc & ((1 << take) - 1)) * mul;
      this.acc >>>= take;
      this.bits -= take;
      mul *= 2 ** take;
      w -= take;
    }
    return v;
  }

  align(): void {
    this.bits = 0;
  }
}
