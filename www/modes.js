// The backends the page can talk to, each a ChatSession configuration. The proxy says which
// provider routes reach a real provider (a key is configured) and which its offline simulated
// provider answers.
import { TOOLS } from "./tools.js";

const PROVIDERS = [
  { id: "openai", label: "OpenAI Chat Completions", model: "gpt-4o-mini" },
  { id: "openai-responses", label: "OpenAI Responses", model: "gpt-4o-mini" },
  { id: "anthropic", label: "Anthropic Messages", model: "claude-sonnet-4-5" },
  { id: "gemini", label: "Gemini", model: "gemini-2.5-flash" },
  { id: "ollama", label: "Ollama", model: "llama3.2" },
  { id: "compat", label: "OpenAI-compatible server", model: "default" },
];

export async function loadModes() {
  let routes = {};
  try {
    routes = await (await fetch("/api/providers")).json();
  } catch {
    // An older proxy or another server: offer every mode, unlabeled.
  }
  const where = (route) => (routes[route] === "configured" ? " — your key" : routes[route] ? " — simulated" : "");
  return [
    {
      id: "agent",
      label: `Agent backend${where("stream")}`,
      options: { endpoint: "/api/chat/stream" },
    },
    ...PROVIDERS.map((p) => ({
      id: p.id,
      label: `${p.label}, tools in the page${where(p.id)}`,
      options: {
        provider: p.id,
        model: p.model,
        system: "You are a helpful assistant. Use the calculate tool for arithmetic and get_time for the time.",
        tools: TOOLS,
      },
    })),
  ];
}
