// useGeneralChat: chat state for React, with the stream handling done by chatstream, over one of
// the package's entries (react.js: the full one; streaming/react.js: the streaming-only one).
import { useCallback, useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore } from "react";
import { CALLBACKS, REQUEST_OPTIONS } from "./session-options.js";
import { STATE_BEFORE_LOAD } from "./loading.js";

// Until the WebAssembly module is loaded the hook reports an empty chat in phase "loading", so the
// first paint never waits for the .wasm download. Server rendering and hydration use it too: the
// server's markup then matches the client's first render whether or not the client has loaded yet.
const LOADING = Object.freeze({ ...STATE_BEFORE_LOAD, phase: "loading" });
const loadingSnapshot = () => LOADING;
const noSubscription = () => () => {};

/** The hook over an entry's `init`, `ChatSession` and `isReady` (and `useAiSdkChat`, where the entry has that mode). */
export function makeUseGeneralChat({ init, ChatSession, isReady, useAiSdkChat }) {
  /**
   * @param {import("./react.js").UseGeneralChatOptions} options
   */
  return function useGeneralChat(options = {}) {
    // The AI SDK backend mode returns what useChat returns. A component keeps its backend: React
    // needs the same hooks called on every render.
    if (options.backend === "ai-sdk" && useAiSdkChat) return useAiSdkChat(options);
    const { session: given, ...sessionOptions } = options;
    const latest = useRef(sessionOptions);
    latest.current = sessionOptions;
    const [own, setOwn] = useState(null);
    const [loadError, setLoadError] = useState(null);
    const opener = useRef(null); // makes the hook's session, once the module is loaded
    const waiting = useRef([]); // sends made before there was a session

    // Loads the module (shared by every caller), then makes the session; a failed load shows in
    // `error`, and the next send tries again.
    const load = useCallback(async () => {
      try {
        await init();
      } catch (error) {
        setLoadError(error);
        for (const resume of waiting.current.splice(0)) resume(null);
        return;
      }
      setLoadError(null);
      opener.current?.();
    }, []);

    // The hook's own session is made at once (it loads the module itself, and a message sent
    // meanwhile goes out without waiting for it) and freed when the component goes (StrictMode's
    // second mount makes a second one; the first is freed). A layout effect: with the module
    // already loaded, the loading state is never painted.
    useLayoutEffect(() => {
      if (given) return undefined;
      let session = null;
      opener.current = () => {
        if (session !== null) return;
        // The callbacks read the latest render's options: inline functions need no memoizing.
        const callbacks = Object.fromEntries(CALLBACKS.map((name) => [name, (value) => latest.current[name]?.(value)]));
        session = new ChatSession({ ...latest.current, ...callbacks });
        setOwn(session);
        for (const resume of waiting.current.splice(0)) resume(session);
      };
      opener.current();
      if (!isReady()) load();
      return () => {
        opener.current = null;
        session?.dispose(); // aborts a turn in flight
        setOwn(null);
      };
    }, [given, load]);

    const session = given ?? own;
    const current = useRef(session);
    current.current = session;

    // Request options given anew (a fresh token in `headers`) apply from the next request.
    const requestOptions = REQUEST_OPTIONS.map((name) => sessionOptions[name]);
    useEffect(() => {
      if (own === null) return;
      own.setOptions(Object.fromEntries(REQUEST_OPTIONS.filter((name) => name in latest.current).map((name) => [name, latest.current[name]])));
    }, [own, ...requestOptions]);

    // The session tells its subscribers when its module has loaded.
    const snapshot = useCallback(() => (session && isReady() ? session.getSnapshot() : LOADING), [session]);
    const state = useSyncExternalStore(session ? session.subscribe : noSubscription, snapshot, loadingSnapshot);

    // Sent while loading: waits for the session (null when the module failed to load).
    const sessionNow = useCallback(() => {
      if (current.current !== null) return Promise.resolve(current.current);
      const made = new Promise((resume) => waiting.current.push(resume));
      load();
      return made;
    }, [load]);
    const drain = async (events) => {
      // The session's state moves on its own; draining the events only tells the caller when done.
      for await (const _event of events) {
        // nothing to do: the snapshot already has it
      }
    };
    const sendMessage = useCallback(async (message, context) => {
      const chat = await sessionNow();
      if (chat) await drain(chat.send(message, context));
    }, [sessionNow]);
    const regenerate = useCallback(async () => {
      const chat = await sessionNow();
      if (chat) await drain(chat.regenerate());
    }, [sessionNow]);
    // Picks up an answer the proxy keeps (the session's streamInFlight() before a reload).
    const resume = useCallback(async (url) => {
      const chat = await sessionNow();
      if (chat) await drain(chat.resume(url));
    }, [sessionNow]);
    // As React chat hooks' stop: nothing to say when nothing is in flight (the session's own
    // stop() returns a CONFLICT event then, for code that wants to know).
    const stop = useCallback(() => {
      current.current?.stop();
    }, []);
    const clearError = useCallback(() => {
      setLoadError(null);
      current.current?.clearError();
    }, []);
    // Replacing the conversation needs the module: it waits for the load (a failed one shows in `error`).
    const setMessages = useCallback(async (messages) => {
      const chat = await sessionNow();
      await load();
      if (isReady()) chat?.setMessages(messages);
    }, [sessionNow, load]);
    const approve = useCallback((id) => current.current?.approve(id) ?? false, []);
    const deny = useCallback((id, reason) => current.current?.deny(id, reason) ?? false, []);

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
      streamingParts: state.streamingParts,
      pendingApproval: state.pendingApproval,
      phase: state.phase,
      sendMessage,
      regenerate,
      resume,
      stop,
      cancel: stop,
      clearError,
      setMessages,
      approve,
      deny,
      session,
    };
  };
}
