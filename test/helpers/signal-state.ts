import type { SignalState } from '../../src/features/reports/signals/state.js';

/**
 * A reader report's state as its buttons carry it: the searches of 2026-11-15 to 2026-11-22, 10
 * rows from the top, asked for by U0ALICE in C0DOCS of project proj_docs; `over` replaces any.
 */
export function signalState(over: Partial<SignalState> = {}): SignalState {
  return {
    report: 'searches',
    dateFrom: '2026-11-15',
    dateTo: '2026-11-22',
    rows: 10,
    cursors: [],
    skip: 0,
    requester: 'U0ALICE',
    channel: 'C0DOCS',
    projectId: 'proj_docs',
    ...over,
  };
}
