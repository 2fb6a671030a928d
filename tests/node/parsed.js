// What JSON.parse makes, checked: tests of values that cross from the module item by item rather
// than as JSON text compare them with JSON.parse of hand-written JSON.
import assert from "node:assert/strict";

/** Every object and array in `value` is a plain one, as JSON.parse makes them. */
function assertPlain(value) {
  if (typeof value !== "object" || value === null) return;
  assert.equal(Object.getPrototypeOf(value), Array.isArray(value) ? Array.prototype : Object.prototype);
  assert.ok(Object.isExtensible(value));
  for (const key of Reflect.ownKeys(value)) {
    const field = Object.getOwnPropertyDescriptor(value, key);
    if (Array.isArray(value) && key === "length") continue;
    assert.deepEqual([field.writable, field.enumerable, field.configurable], [true, true, true], String(key));
    assertPlain(field.value);
  }
}

/** `got` is JSON.parse of `json`: deeply equal, its keys in the same order, plain throughout. */
export function assertParsed(got, json) {
  const expected = JSON.parse(json);
  assert.deepEqual(got, expected);
  assert.equal(JSON.stringify(got), JSON.stringify(expected));
  assertPlain(got);
}

/** JSON values at the edges of how a value crosses from the module: every type, numbers in and out
 * of 32 bits, keys JS orders or treats apart, escapes, and sizes around what crosses item by item. */
export const EDGE_VALUES = [
  "{}",
  "[]",
  '""',
  "null",
  "true",
  "false",
  "0",
  "-1",
  "2147483647",
  "-2147483648",
  // Out of 32 bits, fractions, exponents: numbers that cross as JSON text.
  "2147483648",
  "-2147483649",
  "9007199254740993",
  "18446744073709551615",
  "-0.0",
  "1.5",
  "1e300",
  "-2.5e-7",
  '{"location":"San Francisco"}',
  // Keys in the order serde_json keeps them (sorted), which JS then orders as it orders any object's.
  '{"":"empty key","10":"ten","7":"seven","a":[true,false,null],"b":1}',
  '{"__proto__":{"polluted":true},"constructor":"c","toString":1}',
  '[[],[[]],{},{"x":{"y":{"z":[1,"2",null]}}}]',
  '{"s":"quote \\" backslash \\\\ newline \\n tab \\t nul \\u0000 é 中文 😀 \\u2028"}',
  '{"list":["probe","probe"],"probe":"probe","same":"probe"}',
  // More items than cross one by one, and a long string (set aside, as the values' long strings are).
  JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ i }))),
  JSON.stringify({ long: "l".repeat(2000), short: "s" }),
  // At the edges of what crosses one by one: 64 items (an array and 63 numbers) and 65; strings
  // of 1,023 and 1,024 bytes, as a value and as a key (a multi-byte character counts its bytes).
  JSON.stringify(Array.from({ length: 63 }, (_, i) => i)),
  JSON.stringify(Array.from({ length: 64 }, (_, i) => i)),
  JSON.stringify({ ["k".repeat(1023)]: 1, v: "v".repeat(1023) }),
  JSON.stringify({ ["k".repeat(1024)]: 1, v: "v".repeat(1024) }),
  JSON.stringify({ v: "é".repeat(511) + "x", w: "é".repeat(512) }),
];
