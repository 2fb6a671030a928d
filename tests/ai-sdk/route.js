// The chat route of the test backend, written as the AI SDK's docs write one (ai@7): POST
// `{ messages }` (UI messages) → convertToModelMessages → streamText with tools → a UI message
// stream response. The docs' pages it follows: "Chatbot Tool Usage" (a server tool, client tools,
// `toolApproval`, multi-step with `stopWhen`), "Streaming Custom Data" (data parts written beside
// the model's stream, one reconciled by id and one transient), "Message Metadata" and "Chatbot"
// (`sendSources`). Only the model differs: the scripted mock of ./model.js.
import {
  convertToModelMessages,
  createUIMessageStream,
  createUIMessageStreamResponse,
  isStepCount,
  jsonSchema,
  streamText,
  tool,
  toUIMessageStream,
} from "ai";

const object = (properties, required = Object.keys(properties)) =>
  jsonSchema({ type: "object", properties, required, additionalProperties: false });

/** The route for one model (each test run gets a fresh one). */
export function chatRoute(model) {
  return async function POST(req) {
    const { messages } = await req.json();

    const stream = createUIMessageStream({
      originalMessages: messages,
      execute: async ({ writer }) => {
        const result = streamText({
          model,
          instructions: "You are a helpful assistant.",
          messages: await convertToModelMessages(messages),
          tools: {
            // A server-side tool: it reports its progress as a data part, updated in place by id.
            getWeather: tool({
              description: "Get the weather forecast for a city",
              inputSchema: object({ city: { type: "string" }, unit: { type: "string", enum: ["celsius", "fahrenheit"] } }),
              execute: async ({ city, unit }, { toolCallId }) => {
                writer.write({ type: "data-weather", id: toolCallId, data: { city, status: "loading" } });
                writer.write({ type: "data-notification", data: { message: `Looking up ${city}`, level: "info" }, transient: true });
                // Keys in an order of their own: a client must keep it.
                const forecast = { temperature: 21, unit, conditions: "sunny", city };
                writer.write({ type: "data-weather", id: toolCallId, data: { city, status: "success", forecast } });
                return forecast;
              },
            }),
            // A client-side tool the page runs itself (onToolCall).
            getLocation: tool({
              description: "Get the user's location",
              inputSchema: object({}),
            }),
            // A client-side tool the user answers.
            askForConfirmation: tool({
              description: "Ask the user for confirmation",
              inputSchema: object({ message: { type: "string" } }),
            }),
            // A server-side tool that runs only once the user approves it (toolApproval below).
            deleteFile: tool({
              description: "Delete a file",
              inputSchema: object({ path: { type: "string" } }),
              execute: async ({ path }) => ({ path, deleted: true }),
            }),
          },
          toolApproval: { deleteFile: "user-approval" },
          stopWhen: isStepCount(5),
          // streamText logs a failing model by default; the scripted failure is expected, and the
          // UI message stream carries it to the client.
          onError: () => {},
        });

        writer.merge(
          toUIMessageStream({
            stream: result.stream,
            sendSources: true,
            messageMetadata: ({ part }) => {
              if (part.type === "start") return { model: "scripted-mock" };
              if (part.type === "finish") return { totalTokens: part.totalUsage.totalTokens };
            },
          }),
        );
      },
    });

    return createUIMessageStreamResponse({ stream });
  };
}
