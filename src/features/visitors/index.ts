/**
 * The visitors feature: `/docs-visitors` reports (human vs AI per page, paged in place) over a
 * Redis cache and an hourly analytics budget. Other features (digests) use it only through this
 * module.
 */
import type { App } from '@slack/bolt';
import type { Intake } from '../../platform/intake.js';
import { registerHandlers, type VisitorsHandlerDeps, type VisitorsSubcommands } from './handlers.js';
import { register as registerListeners } from './listeners.js';

export { type Caller, type VisitorsSubcommands } from './handlers.js';
export { createVisitorsServices, visitorsKeyPrefix, type VisitorsServices, type VisitorsServicesOptions } from './service.js';
export type { VisitorsCache } from './store.js';
export { digestRanges, formatRange, type DateRange } from './date-range.js';
export { LIMIT_MAX } from './query.js';
export { visitorsErrorText } from './error-text.js';
export { codeSafe, formatChange, formatCount, formatShare, middleTruncate, pad, percentChange } from './format.js';

/**
 * Wires the visitors feature: its intake handlers now, its listeners on `register(app)`.
 * @param subcommands - `/docs-visitors` subcommands other features provide (digests).
 */
export function wireVisitors(intake: Intake, deps: Omit<VisitorsHandlerDeps, 'subcommands'>, subcommands?: VisitorsSubcommands): { register(app: App): void } {
  const full: VisitorsHandlerDeps = { ...deps, ...(subcommands ? { subcommands } : {}) };
  registerHandlers(intake, full);
  return { register: (app) => registerListeners(app, { intake, logger: deps.services.logger, ...(subcommands ? { subcommands } : {}) }) };
}
