// Anthropic stream frames for the tests that stream a tool call's input.

/** An SSE event of `type` whose data is `{ type, ...data }`. */
export const frame = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** A message's start and its first block, a tool call named "write" with the id "toolu_1". */
export const toolStart =
  frame("message_start", { message: { id: "m", type: "message", role: "assistant", content: [], usage: {} } }) +
  frame("content_block_start", { index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "write", input: {} } });

/** A delta of the first block's input. */
export const inputDelta = (partial_json) => frame("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json } });
