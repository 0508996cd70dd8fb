/** Wraps `fn` so that it runs once; later calls get the first call's promise (e.g. a shutdown asked for twice). */
export function onceOnly(fn: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= fn());
}
