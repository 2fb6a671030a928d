// useGeneralChat({ backend: "ai-sdk" }): the AI SDK backend mode for React. It returns what the AI
// SDK's useChat returns, under the same names, over the entry's ChatSession (which hands these
// options to its AiSdkChat, ai-sdk-chat.js).
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore } from "react";
import { CALLBACKS, REQUEST_OPTIONS, generateId } from "./ai-sdk-chat.js";

const noSubscription = () => () => {};

/** The hook over an entry's `ChatSession`. */
export function makeUseAiSdkChat(ChatSession) {
  return function useAiSdkChat(options) {
    const latest = useRef(options);
    latest.current = options;
    // The chat's id: the app's, or one made once for this component. A new id is a new chat, as in useChat.
    const [madeId] = useState(() => (options.generateId ?? generateId)());
    const id = options.id ?? madeId;
    const [chat, setChat] = useState(null);
    const current = useRef(null);
    const waiting = useRef([]); // calls made before the chat was (before the first layout effect)

    // Made when the component mounts and disposed when it goes (StrictMode's second mount makes a
    // second one). A layout effect: the chat is there before the first paint.
    useLayoutEffect(() => {
      // The callbacks read the latest render's options: inline functions need no memoizing.
      const callbacks = Object.fromEntries(CALLBACKS.map((name) => [name, (value) => latest.current[name]?.(value)]));
      const made = new ChatSession({ ...latest.current, ...callbacks, id });
      current.current = made;
      setChat(made);
      for (const resume of waiting.current.splice(0)) resume(made);
      return () => {
        current.current = null;
        made.dispose(); // stops the answer in flight
        setChat(null);
      };
    }, [id]);

    // Request options given anew (a fresh token in `headers`) apply from the next request.
    useEffect(() => {
      chat?.setOptions(Object.fromEntries(REQUEST_OPTIONS.map((name) => [name, latest.current[name]])));
    }, [chat, ...REQUEST_OPTIONS.map((name) => options[name])]);

    // Before the chat is made, the messages given, as they are.
    const initial = useMemo(() => Object.freeze({ id, messages: latest.current.messages ?? [], status: "ready", error: undefined }), [id]);
    const state = useSyncExternalStore(chat ? chat.subscribe : noSubscription, chat ? chat.getSnapshot : () => initial, () => initial);

    const chatNow = useCallback(
      () => (current.current ? Promise.resolve(current.current) : new Promise((resume) => waiting.current.push(resume))),
      [],
    );
    const sendMessage = useCallback(async (message, requestOptions) => (await chatNow()).sendMessage(message, requestOptions), [chatNow]);
    const regenerate = useCallback(async (requestOptions) => (await chatNow()).regenerate(requestOptions), [chatNow]);
    const stop = useCallback(async () => current.current?.stop(), []);
    const addToolOutput = useCallback(async (output) => (await chatNow()).addToolOutput(output), [chatNow]);
    const addToolApprovalResponse = useCallback(async (response) => (await chatNow()).addToolApprovalResponse(response), [chatNow]);
    const setMessages = useCallback((messages) => {
      if (current.current) current.current.setMessages(messages);
      else chatNow().then((made) => made.setMessages(messages));
    }, [chatNow]);
    const clearError = useCallback(() => current.current?.clearError(), []);

    return {
      id: state.id,
      messages: state.messages,
      status: state.status,
      error: state.error,
      sendMessage,
      regenerate,
      stop,
      addToolOutput,
      addToolApprovalResponse,
      setMessages,
      clearError,
    };
  };
}
