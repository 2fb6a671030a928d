// chatstream/agent: the same API, typed with the events its module makes (no model tool calls).
import init, { ChatSession, ChatStream, streamEvents, type StreamEvent } from "chatstream/agent";
import type { StreamEvent as AnyStreamEvent } from "chatstream/streaming";

export async function read(response: Response): Promise<string[]> {
  await init();
  const seen: string[] = [];
  for await (const event of streamEvents(response)) {
    const known: StreamEvent = event;
    // @ts-expect-error the agent backend runs its tools: no call a model asks for
    if (known.type === "tool_call") seen.push(known.tool);
    if (known.type === "tool_start") seen.push(known.tool);
  }
  const stream = new ChatStream();
  const events: StreamEvent[] = [...stream.push("data: {}\n\n"), ...stream.finish(), ...stream.cancel(), ...stream.skippedChunk()];
  // Still every event of "chatstream/streaming": code written for it takes these.
  const wider: AnyStreamEvent[] = events;
  const chat = new ChatSession({ endpoint: "/api/chat/stream" });
  for await (const event of chat.send("hi")) {
    // @ts-expect-error nor their streamed input
    if (event.type === "tool_input_delta") seen.push(event.delta);
  }
  return seen.concat(wider.map((e) => e.type));
}
