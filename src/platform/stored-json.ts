import type { Redis } from 'ioredis';
import type { z } from 'zod';

/**
 * The record kept as JSON at `key`, checked by `schema` (trust nothing: it may have been written by
 * another version): undefined when there is none (never written, expired) or it does not read (not
 * JSON, or not of the schema). @throws the Redis error.
 */
export async function readStoredJson<T>(
  redis: Pick<Redis, 'get'>,
  key: string,
  schema: z.ZodType<T, unknown>,
): Promise<T | undefined> {
  const raw = await redis.get(key);
  if (!raw) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
