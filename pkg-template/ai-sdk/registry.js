// chatstream/ai-sdk's module as the page has it: module.js puts itself here as it is imported, and
// the entries that load it on the mode's first use (ai-sdk-on-demand.js) look here first. So an app
// that imports chatstream/ai-sdk and calls its `initSync` (a Worker, an edge runtime: no fetch) has
// the mode in chatstream and chatstream/streaming at once. A file of its own, imported by both, so
// that the entries hold no import of module.js but the dynamic one.
export const aiSdk = { module: null };
