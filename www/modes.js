// The backends the page can talk to, each a ChatSession configuration.
export const MODES = [
  {
    id: "agent",
    label: "Agent backend (POST /api/chat/stream)",
    options: { endpoint: "/api/chat/stream" },
  },
];
