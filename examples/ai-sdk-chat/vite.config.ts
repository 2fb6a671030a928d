import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// `npm run dev`: the chat requests go to the test backend (`node tests/ai-sdk/server.js 8788`
// from the repository root starts it on 8788).
const backend = process.env.BACKEND_URL ?? "http://127.0.0.1:8788";

export default defineConfig({
  plugins: [react()],
  server: { proxy: { "/api": backend } },
});
