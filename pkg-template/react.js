// useGeneralChat: chat state for React, with the stream handling done by chatstream.
// React is an optional peer dependency: import this file only in React apps.
import { useCallback, useRef, useSyncExternalStore } from "react";
import { ChatSession } from "./index.js";

/**
 * @param {import("./index.js").ChatSessionOptions} options read once, on the first render
 */
export function useGeneralChat(options = {}) {
  const ref = useRef(null);
  if (ref.current === null) ref.current = new ChatSession(options);
  const session = ref.current;
  const state = useSyncExternalStore(session.subscribe, session.getSnapshot, session.getSnapshot);

  const sendMessage = useCallback(async (message, context) => {
    // The session's state moves on its own; draining the events only tells the caller when done.
    for await (const _event of session.send(message, context)) {
      // nothing to do: the snapshot already has it
    }
  }, [session]);
  const cancel = useCallback(() => session.cancel(), [session]);

  return {
    messages: state.messages,
    isLoading: state.isLoading,
    streamingText: state.streamingText,
    statusText: state.statusText,
    activeToolProgress: state.activeToolProgress,
    // The error as a string (what chat UIs render); the code is beside it.
    error: state.error ? state.error.message : null,
    errorCode: state.error ? state.error.code : null,
    thinkingText: state.thinkingText,
    streamingSegments: state.streamingSegments,
    phase: state.phase,
    sendMessage,
    cancel,
    session,
  };
}
