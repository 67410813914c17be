import { fatal } from "./abort";

/** What a Value holds. Integers outside the i64 range (above 2^63-1) are UInt. */
export enum Kind { Nil, Bool, Int, UInt, Float, Str, Bin, Arr, Map }

const KIND_NAMES: string[] = ["nil", "bool", "int", "uint", "float", "str", "bin", "array", "map"];

export function kindName(k: Kind): string {
  return KIND_NAMES[<i32>k];
}

/**
 * A dynamic msgpack value: what the host sends, what a hook returns. Lookups never abort
 * (`get` on a missing key or a non-map gives nil, so `v.get("a").get("b").isNil()` is
 * safe); the `asX()` conversions abort with a message when the kind is wrong, and the
 * `asXOr(fallback)` forms return the fallback instead.
 *
 * ```ts
 * const limit = req.payload.get("arguments").get("limit").asIntOr(10);
 * const reply = Value.map().set("ok", Value.bool(true)).set("items", Value.arr().push(Value.int(1)));
 * ```
 */
export class Value {
  kind: Kind = Kind.Nil;
  private b: bool = false;
  private i: i64 = 0; // Int, and the bits of UInt
  private f: f64 = 0;
  private s: string = "";
  private bytes: Uint8Array | null = null;
  private items: Value[] | null = null; // Arr values, or Map values
  private names: string[] | null = null; // Map keys, in insertion order

  // Constructors.
  static nil(): Value { return new Value(); }
  static bool(b: bool): Value { const v = new Value(); v.kind = Kind.Bool; v.b = b; return v; }
  static int(i: i64): Value { const v = new Value(); v.kind = Kind.Int; v.i = i; return v; }
  /** An unsigned 64-bit integer; values up to 2^63-1 are stored (and written) as Int. */
  static uint(u: u64): Value {
    if (u <= <u64>i64.MAX_VALUE) return Value.int(<i64>u);
    const v = new Value(); v.kind = Kind.UInt; v.i = <i64>u; return v;
  }
  static float(f: f64): Value { const v = new Value(); v.kind = Kind.Float; v.f = f; return v; }
  static str(s: string): Value { const v = new Value(); v.kind = Kind.Str; v.s = s; return v; }
  static bin(bytes: Uint8Array): Value { const v = new Value(); v.kind = Kind.Bin; v.bytes = bytes; return v; }
  static arr(): Value { const v = new Value(); v.kind = Kind.Arr; v.items = []; return v; }
  static map(): Value { const v = new Value(); v.kind = Kind.Map; v.items = []; v.names = []; return v; }

  // Kind tests.
  isNil(): bool { return this.kind == Kind.Nil; }
  isBool(): bool { return this.kind == Kind.Bool; }
  /** True for Int and UInt, and for a Float with an integral value (the spec lets a host send one). */
  isInt(): bool {
    return this.kind == Kind.Int || this.kind == Kind.UInt || (this.kind == Kind.Float && isIntegral(this.f));
  }
  isFloat(): bool { return this.kind == Kind.Float; }
  isNumber(): bool { return this.kind == Kind.Int || this.kind == Kind.UInt || this.kind == Kind.Float; }
  isString(): bool { return this.kind == Kind.Str; }
  isBin(): bool { return this.kind == Kind.Bin; }
  isArray(): bool { return this.kind == Kind.Arr; }
  isMap(): bool { return this.kind == Kind.Map; }

  // Conversions that abort on the wrong kind.
  asBool(): bool { this.expect(this.kind == Kind.Bool, "bool"); return this.b; }
  /** The integer; a Float with an integral value in the i64 range is accepted (abi/README.md §4). */
  asInt(): i64 {
    if (this.kind == Kind.Int) return this.i;
    if (this.kind == Kind.Float && isIntegral(this.f) && this.f >= -9223372036854775808.0 && this.f < 9223372036854775808.0) return <i64>this.f;
    this.expect(false, this.kind == Kind.UInt ? "int within the i64 range" : "int");
    return 0;
  }
  /** The value as u64: any non-negative integer, including those above 2^63-1. */
  asUint(): u64 {
    if (this.kind == Kind.UInt) return <u64>this.i;
    const i = this.asInt();
    this.expect(i >= 0, "non-negative int");
    return <u64>i;
  }
  asFloat(): f64 {
    if (this.kind == Kind.Float) return this.f;
    if (this.kind == Kind.Int) return <f64>this.i;
    if (this.kind == Kind.UInt) return <f64><u64>this.i;
    this.expect(false, "number");
    return 0;
  }
  asString(): string { this.expect(this.kind == Kind.Str, "str"); return this.s; }
  asBytes(): Uint8Array { this.expect(this.kind == Kind.Bin, "bin"); return this.bytes!; }

  // Conversions with a fallback.
  asBoolOr(fallback: bool): bool { return this.kind == Kind.Bool ? this.b : fallback; }
  asIntOr(fallback: i64): i64 {
    if (this.kind == Kind.Int) return this.i;
    if (this.kind == Kind.Float && isIntegral(this.f) && this.f >= -9223372036854775808.0 && this.f < 9223372036854775808.0) return <i64>this.f;
    return fallback;
  }
  asFloatOr(fallback: f64): f64 { return this.isNumber() ? this.asFloat() : fallback; }
  asStringOr(fallback: string): string { return this.kind == Kind.Str ? this.s : fallback; }

  // Containers.
  /** Number of items of an array, entries of a map, UTF-16 units of a string, bytes of a bin; 0 otherwise. */
  get length(): i32 {
    if (this.kind == Kind.Arr || this.kind == Kind.Map) return this.items!.length;
    if (this.kind == Kind.Str) return this.s.length;
    if (this.kind == Kind.Bin) return this.bytes!.length;
    return 0;
  }
  /** The array item at `index`, or nil when out of range or not an array. */
  at(index: i32): Value {
    if (this.kind != Kind.Arr || index < 0 || index >= this.items!.length) return new Value();
    return unchecked(this.items![index]);
  }
  /** The map entry for `key`, or nil. With duplicate keys the last one wins, as on the host. */
  get(key: string): Value {
    if (this.kind != Kind.Map) return new Value();
    const names = this.names!;
    for (let i = names.length - 1; i >= 0; i--) {
      if (unchecked(names[i]) == key) return unchecked(this.items![i]);
    }
    return new Value();
  }
  has(key: string): bool {
    if (this.kind != Kind.Map) return false;
    return this.names!.includes(key);
  }
  /** The keys of a map in the order they were received or set; empty otherwise. */
  keys(): string[] {
    return this.kind == Kind.Map ? this.names!.slice(0) : [];
  }
  /** The values of a map (in key order) or the items of an array. */
  values(): Value[] {
    return this.kind == Kind.Map || this.kind == Kind.Arr ? this.items!.slice(0) : [];
  }
  /** Sets `key` in a map (replacing an existing entry in place); returns this map for chaining. */
  set(key: string, value: Value): Value {
    this.expect(this.kind == Kind.Map, "map");
    const names = this.names!;
    for (let i = names.length - 1; i >= 0; i--) {
      if (unchecked(names[i]) == key) { this.items![i] = value; return this; }
    }
    names.push(key);
    this.items!.push(value);
    return this;
  }
  /** Appends to an array; returns this array for chaining. */
  push(value: Value): Value {
    this.expect(this.kind == Kind.Arr, "array");
    this.items!.push(value);
    return this;
  }

  // For the codec: the raw parts without checks.
  /** @internal */ rawBool(): bool { return this.b; }
  /** @internal */ rawBits(): i64 { return this.i; }
  /** @internal */ rawFloat(): f64 { return this.f; }
  /** @internal */ rawString(): string { return this.s; }
  /** @internal */ rawBytes(): Uint8Array { return this.bytes!; }
  /** @internal */ rawItems(): Value[] { return this.items!; }
  /** @internal */ rawNames(): string[] { return this.names!; }
  /** @internal Appends without looking for an existing key: the decoder keeps what it read. */
  rawAppend(key: string, value: Value): void { this.names!.push(key); this.items!.push(value); }

  private expect(ok: bool, wanted: string): void {
    if (!ok) fatal("sluice: expected a value of kind " + wanted + ", got " + kindName(this.kind));
  }
}

function isIntegral(f: f64): bool {
  return isFinite(f) && Math.floor(f) == f;
}
