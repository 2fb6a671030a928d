import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// `npm run dev`: the chat requests go to chatstream-proxy (`./build.sh demo` starts it on 8787).
const proxy = process.env.PROXY_URL ?? "http://127.0.0.1:8787";

export default defineConfig({
  plugins: [react()],
  // The proxy serves only its own host and origin (so that no other page can spend its keys):
  // the dev server forwards as that origin.
  server: { proxy: { "/api": { target: proxy, changeOrigin: true, headers: { origin: new URL(proxy).origin } } } },
});
