// The ChatSession options that live in JS, read from the app on each use rather than given to the
// module once: shared by the session (session.js) and the React hook (react-hook.js), which passes
// them on whenever they change; and the checks ChatSession and AiSdkChat (ai-sdk-chat.js) give
// their options.
export const CALLBACKS = ["onFinish", "onError", "onToolCall", "onData"];
export const REQUEST_OPTIONS = ["endpoint", "headers", "body", "credentials", "fetch"];

/** `value` when it is a string, else a TypeError naming `owner`'s option `name`. */
export function stringOption(owner, value, name) {
  if (typeof value !== "string") throw new TypeError(`${owner} options: ${name} must be a string`);
  return value;
}

/** `value` when it is a function, else a TypeError naming `owner`'s option `name`. */
export function functionOption(owner, value, name) {
  if (typeof value !== "function") throw new TypeError(`${owner} options: ${name} must be a function`);
  return value;
}
