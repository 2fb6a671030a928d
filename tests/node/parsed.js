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
