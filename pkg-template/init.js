// Loading an entry's WebAssembly module (made by wasm-bindgen) once: the `init`, `initSync` and
// `isReady` every entry exports.

// wasm-bindgen takes `{ module_or_path }` / `{ module }` and warns on anything else; both forms are fine here.
const isOptions = (input) => Object.getPrototypeOf(input) === Object.prototype;

/** `init`, `initSync` and `isReady` over `wasm`, the namespace of a wasm-bindgen module. */
export function makeLoader(wasm) {
  let ready = false;
  let loading = null;

  /** Loads the module. Idempotent: concurrent calls share one load; after a failed load the next call tries again. */
  function init(input) {
    if (ready) return Promise.resolve();
    loading ??= wasm.default(input === undefined || isOptions(input) ? input : { module_or_path: input }).then(
      () => {
        ready = true;
      },
      (error) => {
        loading = null;
        throw error;
      },
    );
    return loading;
  }

  /** Loads the module from bytes or a compiled module, synchronously. */
  function initSync(input) {
    if (ready) return;
    wasm.initSync(isOptions(input) ? input : { module: input });
    ready = true;
  }

  /** Whether the module is loaded (always, in Node). */
  return { init, initSync, isReady: () => ready };
}
