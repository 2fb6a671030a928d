// What the AI SDK's UI messages say about the conversation, for `sendAutomaticallyWhen`: the
// equivalents of the AI SDK's two helpers of that name, for the AI SDK backend mode (ai-sdk-chat.js).
// A file of its own: every entry exports them, also those whose module has no AI SDK backend mode.

const isToolPart = (part) => part.type === "dynamic-tool" || part.type.startsWith("tool-");
const isFinalOutput = (part) => (part.state === "output-available" && part.preliminary !== true) || part.state === "output-error";

/** The parts of the last step of the last message, when that is an assistant's; else null. */
function lastStepOfAnswer(messages) {
  const message = messages[messages.length - 1];
  if (message?.role !== "assistant") return null;
  const start = message.parts.findLastIndex((part) => part.type === "step-start");
  return message.parts.slice(start + 1);
}

/**
 * For `sendAutomaticallyWhen`: the last answer's last step called tools the page runs, each has its
 * output (or its error), and no text is still streaming after them.
 */
export function lastAssistantMessageIsCompleteWithToolCalls({ messages }) {
  const step = lastStepOfAnswer(messages);
  if (step === null) return false;
  const isPageTool = (part) => isToolPart(part) && !part.providerExecuted;
  const calls = step.filter(isPageTool);
  const after = step.slice(step.findLastIndex(isPageTool) + 1);
  return calls.length > 0 && calls.every(isFinalOutput) && !after.some((part) => part.type === "text" && part.state !== "done");
}

/**
 * For `sendAutomaticallyWhen`: the last answer's last step has an approval the user answered, and
 * every tool call of that step is answered or done.
 */
export function lastAssistantMessageIsCompleteWithApprovalResponses({ messages }) {
  const step = lastStepOfAnswer(messages);
  if (step === null) return false;
  const tools = step.filter(isToolPart);
  const settled = (part) => isFinalOutput(part) || part.state === "output-denied" || part.state === "approval-responded";
  return tools.some((part) => part.state === "approval-responded") && tools.every(settled);
}
