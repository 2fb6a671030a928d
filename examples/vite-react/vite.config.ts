import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// `npm run dev`: the chat requests go to chatstream-proxy (`./build.sh demo` starts it on 8787). The proxy
// listens on loopback, so it serves the dev server's localhost host and origin as they are forwarded.
export default defineConfig({
  plugins: [react()],
  server: { proxy: { "/api": process.env.PROXY_URL ?? "http://127.0.0.1:8787" } },
});
