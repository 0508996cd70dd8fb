/**
 * Agent jobs of the fake docs API (admin API v2; spec: test/fixtures/mintlify/admin-openapi.json):
 * POST /v2/agent/{projectId}/job → 201 AgentJob | 400; GET …/job/{id} → 200 AgentJob | 404;
 * POST …/job/{id}/message → 200 AgentJob | 400 | 404.
 *
 * Job status is computed lazily from the clock passed to every call (no timers), so tests can drive
 * it with `now: () => t`.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { errorReply, type Reply } from './reply.js';

/** How a (fake) agent run ends; see {@link defaultFakeOutcome}. */
export type FakeOutcome = 'pr' | 'no-changes' | 'failed' | 'archived';

/** Internal state of one agent job. Tests may read it (and mutate it, e.g. `activeUntil`). */
export interface FakeAgentJob {
  /** `job_` + 12 lowercase alphanumerics. */
  id: string;
  /** The project it was created in: the job routes of any other project answer 404. */
  projectId: string;
  /** Git branch reported as `source.ref`: `mintlify/agent-<8 chars of the id>`. */
  ref: string;
  model: string;
  /** Creation time, ms. */
  createdAt: number;
  /** The job reads as `active` while `now() < activeUntil` (ms). */
  activeUntil: number;
  /** Outcome of the latest run (creation or follow-up), applied once it stops being active. */
  outcome: FakeOutcome;
  /** PR number once a run produced a PR (kept across later runs), else null. */
  prNumber: number | null;
  /** Prompts in order: the creation prompt, then each follow-up. */
  messages: string[];
}

/** JSON body of an AgentJob (spec: admin-openapi.json, components.schemas.AgentJob). */
export interface FakeAgentJobBody {
  id: string;
  status: 'active' | 'completed' | 'archived' | 'failed';
  source: { repository: string; ref: string | null };
  model: string;
  prLink: string | null;
  createdAt: string;
  archivedAt: string | null;
}

/** The agent model reported on every job. */
const DEFAULT_MODEL = 'claude-sonnet-4-5';
/** The first PR a fake job opens is `<repository>/pull/101`. */
const FIRST_PR_NUMBER = 101;

/**
 * Default outcome rule: a prompt containing `[fail]` → 'failed', `[no-changes]` → 'no-changes',
 * `[archive]` → 'archived' (checked in that order), anything else → 'pr'.
 */
export function defaultFakeOutcome(prompt: string): FakeOutcome {
  if (prompt.includes('[fail]')) return 'failed';
  if (prompt.includes('[no-changes]')) return 'no-changes';
  if (prompt.includes('[archive]')) return 'archived';
  return 'pr';
}

function randomId(length: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(length)].map((b) => alphabet[b % alphabet.length]).join('');
}

/** Checks a `{prompt}` body the way the vendor's (zod) validation reports it; returns the prompt or a 400. */
function readPrompt(body: unknown): string | Reply {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return errorReply(
      400,
      `Expected object, received ${body === null ? 'null' : Array.isArray(body) ? 'array' : typeof body}`,
    );
  }
  const prompt = (body as { prompt?: unknown }).prompt;
  if (prompt === undefined) return errorReply(400, 'prompt: Required');
  if (typeof prompt !== 'string')
    return errorReply(400, `prompt: Expected string, received ${prompt === null ? 'null' : typeof prompt}`);
  if (prompt.length < 1) return errorReply(400, 'prompt: String must contain at least 1 character(s)');
  return prompt;
}

/** The prompt of a POST body: JSON with `content-type: application/json` and a string `prompt` of length ≥ 1, else a 400. */
function promptOf(headers: IncomingMessage['headers'], rawBody: string): string | Reply {
  const mediaType = headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') return errorReply(400, 'Content-Type must be application/json');
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody) as unknown;
  } catch {
    return errorReply(400, 'Invalid JSON body');
  }
  return readPrompt(parsed);
}

/** Options of {@link AgentJobs}. */
export interface AgentJobsOptions {
  /** Repository URL without trailing slash or ".git" (for `source.repository` and PR links). */
  repository: string;
  /** How long each run stays `active`, in ms. */
  jobDurationMs: number;
  /** Decides each run's outcome from its prompt. */
  decideOutcome: (prompt: string) => FakeOutcome;
}

/** The fake's agent jobs by id, and the three job routes over them. */
export class AgentJobs {
  /** Jobs by id. */
  readonly jobs = new Map<string, FakeAgentJob>();
  private nextPrNumber = FIRST_PR_NUMBER;

  constructor(private readonly opts: AgentJobsOptions) {}

  /**
   * Answer a job route of `projectId` (already checked to be served): `createJob` (POST …/job →
   * 201), `job` (GET …/job/{id} → 200) or `message` (POST …/job/{id}/message → 200); 404 "Job not
   * found" for an unknown job or one of another project, 400 for a bad `{prompt}` body. `at` is the
   * clock in ms.
   */
  reply(
    route: 'createJob' | 'job' | 'message',
    projectId: string,
    jobId: string,
    headers: IncomingMessage['headers'],
    rawBody: string,
    at: number,
  ): Reply {
    const found = route === 'createJob' ? undefined : this.jobs.get(jobId);
    const job = found?.projectId === projectId ? found : undefined;
    if (route !== 'createJob' && !job) return errorReply(404, 'Job not found');
    if (route === 'job' && job) return { status: 200, body: this.view(job, at) };
    // POST with a {prompt} body: create or follow-up.
    const prompt = promptOf(headers, rawBody);
    if (typeof prompt !== 'string') return prompt;
    if (job) {
      this.startRun(job, prompt, at);
      return { status: 200, body: this.view(job, at) };
    }
    const created = this.create(projectId, prompt, at);
    return { status: 201, body: this.view(created, at) };
  }

  private create(projectId: string, prompt: string, at: number): FakeAgentJob {
    const id = `job_${randomId(12)}`;
    const created: FakeAgentJob = {
      id,
      projectId,
      ref: `mintlify/agent-${id.slice(4, 12)}`,
      model: DEFAULT_MODEL,
      createdAt: at,
      activeUntil: at,
      outcome: 'pr',
      prNumber: null,
      messages: [],
    };
    this.startRun(created, prompt, at);
    this.jobs.set(id, created);
    return created;
  }

  /** A run (creation or follow-up): active for `jobDurationMs`; a 'pr' outcome on a job without a PR takes the next PR number. */
  private startRun(job: FakeAgentJob, prompt: string, at: number): void {
    job.messages.push(prompt);
    job.outcome = this.opts.decideOutcome(prompt);
    job.activeUntil = at + this.opts.jobDurationMs;
    if (job.outcome === 'pr' && job.prNumber === null) job.prNumber = this.nextPrNumber++;
  }

  /** The AgentJob body at clock `at` (ms): `prLink` is null while `active`, as the spec says. */
  private view(job: FakeAgentJob, at: number): FakeAgentJobBody {
    const active = at < job.activeUntil;
    const status = active ? 'active' : job.outcome === 'pr' || job.outcome === 'no-changes' ? 'completed' : job.outcome;
    const repository = this.opts.repository;
    return {
      id: job.id,
      status,
      source: { repository, ref: job.ref },
      model: job.model,
      prLink: !active && job.prNumber !== null ? `${repository}/pull/${job.prNumber}` : null,
      createdAt: new Date(job.createdAt).toISOString(),
      archivedAt: status === 'archived' ? new Date(job.activeUntil).toISOString() : null,
    };
  }
}
