import { createLogger, type Logger } from '../../src/platform/logger.js';

/** One JSON log line as pino wrote it. */
export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A pino logger (the app's own) writing into an array, for asserting on log lines. */
export function arrayLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = createLogger('debug', { write: (s: string) => lines.push(JSON.parse(s) as LogLine) } as unknown as NodeJS.WritableStream);
  return { logger, lines };
}
