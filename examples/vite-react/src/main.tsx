import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import "./style.css";

// No `await init()` here: useGeneralChat loads the WebAssembly module itself and reports
// `ready: false` (phase "loading") meanwhile, so the first paint does not wait for the download.
createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
