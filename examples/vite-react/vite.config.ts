import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

export default defineConfig({
  plugins: [react()],
  // `npm run dev`: the chat requests go to chatstream-proxy (`./build.sh demo` starts it on 8787).
  server: { proxy: { "/api": process.env.PROXY_URL ?? "http://127.0.0.1:8787" } },
});
