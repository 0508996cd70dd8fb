/**
 * What `work` settles to, or `late()` once `ms` (ms) have passed without it: the one way this
 * code bounds a wait. Built on `AbortSignal.timeout` (its timer does not keep the process alive).
 * `work` is not cancelled: it goes on, and its late result or error is ignored.
 *
 * @param late - the value when time runs out; throw from it to reject instead.
 * @throws what `work` throws, if it settles in time; what `late` throws otherwise.
 */
export function withinTime<T>(work: Promise<T>, ms: number, late: () => T): Promise<T> {
  const signal = AbortSignal.timeout(ms);
  return new Promise<T>((resolve, reject) => {
    const onTimeout = () => {
      try {
        resolve(late());
      } catch (err) {
        reject(err);
      }
    };
    signal.addEventListener('abort', onTimeout, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onTimeout);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onTimeout);
        reject(err);
      },
    );
  });
}
