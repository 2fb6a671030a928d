// The ChatSession options that live in JS, read from the app on each use rather than given to the
// module once: shared by the session (session.js) and the React hook (react-hook.js), which passes
// them on whenever they change.
export const CALLBACKS = ["onFinish", "onError", "onToolCall", "onData"];
export const REQUEST_OPTIONS = ["endpoint", "headers", "body", "credentials", "fetch"];
