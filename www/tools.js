// Tools that run in the page, for provider mode: the model asks, ChatSession runs them and sends
// the results back. They work offline, so tool calls can be tried with the simulated provider.

/** Evaluates + - * / ^ and parentheses. A small parser, never `eval`: the input is model output. */
export function calculate(expression) {
  const stray = String(expression).match(/[^\d\s+\-*/^().]/);
  if (stray) throw new Error(`not arithmetic: ${stray[0]}`);
  const tokens = String(expression).match(/\d+(?:\.\d+)?|[-+*/^()]/g) ?? [];
  let at = 0;
  const peek = () => tokens[at];
  const take = () => tokens[at++];
  const primary = () => {
    const token = take();
    if (token === "(") {
      const value = sum();
      if (take() !== ")") throw new Error("a ( is not closed");
      return value;
    }
    if (token === "-") return -primary();
    if (token === undefined || !/^\d/.test(token)) throw new Error(`unexpected ${token ?? "end"}`);
    return Number(token);
  };
  const power = () => {
    const base = primary();
    return peek() === "^" ? (take(), base ** power()) : base;
  };
  const product = () => {
    let value = power();
    while (peek() === "*" || peek() === "/") value = take() === "*" ? value * power() : value / power();
    return value;
  };
  const sum = () => {
    let value = product();
    while (peek() === "+" || peek() === "-") value = take() === "+" ? value + product() : value - product();
    return value;
  };
  const value = sum();
  if (at !== tokens.length) throw new Error(`unexpected ${tokens[at]}`);
  return value;
}

/** The arithmetic in a sentence ("use calculate: what is 12*(3+4)?" → "12*(3+4)"). */
export function arithmeticIn(text) {
  const runs = String(text).match(/[\d(][\d\s+\-*/^().]*/g) ?? [];
  return runs.map((r) => r.trim()).sort((a, b) => b.length - a.length)[0] ?? "";
}

export const TOOLS = [
  {
    name: "calculate",
    description: "Evaluates an arithmetic expression with + - * / ^ and parentheses.",
    input_schema: {
      type: "object",
      properties: { expression: { type: "string", description: "e.g. 12*(3+4)" } },
      required: ["expression"],
    },
    async execute({ expression }, { progress }) {
      const found = arithmeticIn(expression);
      progress({ stage: "evaluating", message: `Evaluating ${found || expression}` });
      return { expression: found, value: calculate(found) };
    },
  },
  {
    name: "get_time",
    description: "The current date and time, in an IANA time zone if given (e.g. Asia/Tokyo).",
    input_schema: { type: "object", properties: { timezone: { type: "string" } } },
    async execute({ timezone }) {
      const now = new Date();
      try {
        return { timezone, time: now.toLocaleString("en-GB", { timeZone: timezone, timeZoneName: "short" }) };
      } catch {
        // Not a time zone name (models and the simulated provider send other text): local time.
        return { timezone: Intl.DateTimeFormat().resolvedOptions().timeZone, time: now.toLocaleString("en-GB", { timeZoneName: "short" }) };
      }
    },
  },
  {
    name: "save_note",
    description: "Saves a note in this page. The user approves each note first.",
    input_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    needsApproval: true,
    async execute({ text }) {
      NOTES.push(text);
      return { saved: text, notes: NOTES.length };
    },
  },
];

/** The notes `save_note` kept (the page's only storage: a reload forgets them). */
export const NOTES = [];
