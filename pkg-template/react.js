// useGeneralChat: chat state for React, with the stream handling done by chatstream.
// React is an optional peer dependency: import this file only in React apps.
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from "react";
import init, { ChatSession, isReady } from "./index.js";

// Until the WebAssembly module is loaded the hook reports an empty chat in phase "loading", so the
// first paint never waits for the .wasm download. Server rendering and hydration use it too: the
// server's markup then matches the client's first render whether or not the client has loaded yet.
const LOADING = Object.freeze({
  messages: Object.freeze([]),
  isLoading: false,
  streamingText: "",
  thinkingText: "",
  statusText: null,
  activeToolProgress: null,
  error: null,
  streamingSegments: Object.freeze([]),
  phase: "loading",
});
const loadingSnapshot = () => LOADING;
const noSubscription = () => () => {};

/**
 * @param {import("./index.js").ChatSessionOptions} options read once, on the first render
 */
export function useGeneralChat(options = {}) {
  const firstOptions = useRef(options).current;
  const ref = useRef(null);
  const open = () => (ref.current ??= new ChatSession(firstOptions));
  if (isReady()) open();
  const session = ref.current;
  const [loadError, setLoadError] = useState(null);
  const [, setOpened] = useState(false);

  // init() is shared by every caller, so many hooks (and StrictMode's second effect) load once.
  // A failed load shows in `error`, and the next sendMessage tries again.
  const load = useCallback(async () => {
    try {
      await init();
    } catch (error) {
      setLoadError(error);
      return false;
    }
    setLoadError(null);
    open();
    setOpened(true); // renders again, now with the session
    return true;
  }, []);
  useEffect(() => {
    if (ref.current === null) load();
  }, [load]);

  const state = useSyncExternalStore(
    session ? session.subscribe : noSubscription,
    session ? session.getSnapshot : loadingSnapshot,
    loadingSnapshot,
  );

  const sendMessage = useCallback(async (message, context) => {
    // Sent while loading: waits for the module (a failed load ends here, its error in `error`).
    if (ref.current === null && !(await load())) return;
    // The session's state moves on its own; draining the events only tells the caller when done.
    for await (const _event of ref.current.send(message, context)) {
      // nothing to do: the snapshot already has it
    }
  }, [load]);
  const cancel = useCallback(() => ref.current?.cancel(), []);

  // While loading, the error is why the load failed: not a chat error, so it has no code.
  const error = state === LOADING && loadError ? { message: String(loadError.message ?? loadError), code: null } : state.error;
  return {
    ready: state !== LOADING,
    messages: state.messages,
    isLoading: state.isLoading,
    streamingText: state.streamingText,
    statusText: state.statusText,
    activeToolProgress: state.activeToolProgress,
    // The error as a string (what chat UIs render); the code is beside it.
    error: error ? error.message : null,
    errorCode: error ? error.code : null,
    thinkingText: state.thinkingText,
    streamingSegments: state.streamingSegments,
    phase: state.phase,
    sendMessage,
    cancel,
    session,
  };
}
