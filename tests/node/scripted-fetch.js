// A `fetch` for a ChatSession that answers its requests in turn, each with the reads of one of
// `answers`: a string (sent as its bytes), or a function of the body's controller (that ends it,
// or sends what it likes).
const encoder = new TextEncoder();

export function scriptedFetch(answers) {
  let calls = 0;
  return async () => {
    const reads = answers[calls++];
    let at = 0;
    const pull = (controller) => {
      const read = reads[at++];
      if (read === undefined) return controller.close();
      return typeof read === "string" ? controller.enqueue(encoder.encode(read)) : read(controller);
    };
    return new Response(new ReadableStream({ pull }), { headers: { "content-type": "text/event-stream" } });
  };
}
