import type { JobRecord } from '../../src/features/agent-jobs/store.js';

/** A complete job record for store tests; override what the test is about. */
export function jobRecord(overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    jobId: 'job_1',
    projectId: 'proj_a',
    teamId: 'T1',
    channel: 'C1',
    threadTs: '1700000000.000100',
    statusTs: '1700000000.000100',
    requester: 'U1',
    instruction: 'Add a quickstart',
    createdAt: 1_000,
    cycle: 0,
    cycleRequester: 'U1',
    cycleStartedAt: 1_000,
    state: 'active',
    prLink: null,
    endedAt: 0,
    note: '',
    reaction: '',
    permalink: '',
    reactionTs: '1700000000.000100',
    alsoMention: '',
    contextFrom: '',
    ...overrides,
  };
}
