/**
 * The visitors feature: `/docs-visitors` reports (human vs AI per page, paged in place) over a
 * Redis cache and an hourly analytics budget. Other features (digests) use it only through this
 * module.
 */
export { register, type Caller, type VisitorsListenerDeps, type VisitorsSubcommands } from './listeners.js';
export { createVisitorsServices, visitorsKeyPrefix, type VisitorsServices, type VisitorsServicesOptions } from './service.js';
export type { VisitorsCache } from './store.js';
export { digestRanges, formatRange, type DateRange } from './date-range.js';
export { LIMIT_MAX } from './query.js';
export { visitorsErrorText } from './error-text.js';
export { codeSafe, formatChange, formatCount, formatShare, middleTruncate, pad, percentChange } from './format.js';
