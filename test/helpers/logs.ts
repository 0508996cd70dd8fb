import { createLogger, type Logger } from '../../src/platform/logger.js';

/** One JSON log line as pino wrote it. */
export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/**
 * A pino logger (the app's own) writing into an array, for asserting on log lines.
 * @param level - the least level kept (pino's names); default `debug`.
 * @param lines - the array to write into (a test may keep one across loggers); default a new one.
 */
export function arrayLogger<L extends { level: number; msg: string } = LogLine>(
  level: Parameters<typeof createLogger>[0] = 'debug',
  lines: L[] = [],
): { logger: Logger; lines: L[] } {
  const logger = createLogger(level, {
    write: (s: string) => void lines.push(JSON.parse(s) as L),
  } as unknown as NodeJS.WritableStream);
  return { logger, lines };
}
