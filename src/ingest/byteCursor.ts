import { StreamFileError } from './streamError.js';

/**
 * A big-endian reader over one stream file's bytes (the Java DataOutputStream layout of record and
 * signature files). Every read checks the bounds, so a truncated file is refused instead of misread.
 */
export class ByteCursor {
  pos = 0;

  constructor(
    readonly bytes: Buffer,
    readonly file: string,
  ) {}

  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  fail(reason: string): never {
    throw new StreamFileError(this.file, reason);
  }

  private need(n: number, what: string): void {
    if (n < 0 || this.pos + n > this.bytes.length) {
      this.fail(`truncated: ${what} needs ${n} bytes at offset ${this.pos}, ${this.remaining} left`);
    }
  }

  byte(what: string): number {
    this.need(1, what);
    return this.bytes[this.pos++]!;
  }

  int32(what: string): number {
    this.need(4, what);
    const v = this.bytes.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  int64(what: string): bigint {
    this.need(8, what);
    const v = this.bytes.readBigInt64BE(this.pos);
    this.pos += 8;
    return v;
  }

  take(n: number, what: string): Buffer {
    this.need(n, what);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** `int len` then that many bytes; a negative or oversized length is refused. */
  lengthPrefixed(what: string, max = Number.MAX_SAFE_INTEGER): Buffer {
    const len = this.int32(`${what} length`);
    if (len < 0 || len > max) this.fail(`${what} length ${len} is out of range`);
    if (len > this.remaining) this.fail(`truncated: ${what} of ${len} bytes at offset ${this.pos}, ${this.remaining} left`);
    return this.take(len, what);
  }

  expectInt32(expected: number, what: string): void {
    const v = this.int32(what);
    if (v !== expected) this.fail(`${what} is ${v}, expected ${expected}`);
  }

  expectEnd(): void {
    if (this.remaining !== 0) this.fail(`${this.remaining} unexpected bytes after the end of the content`);
  }
}
