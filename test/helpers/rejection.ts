import { expect } from 'vitest';

/** The error `p` rejects with; it must reject with an instance of `type` (asserted). */
export async function rejectionOf<T>(p: Promise<unknown>, type: abstract new (...a: never[]) => T): Promise<T> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(type);
  return err as T;
}
