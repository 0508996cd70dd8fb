/**
 * Preview deployments of the fake docs API (spec: test/fixtures/mintlify/deployments-openapi.json and
 * its SOURCE.md): POST /v1/project/preview/{projectId} with `{branch}` → 202 `{statusId, previewUrl}`;
 * GET /v1/project/update-status/{statusId} → 200 status. Beyond the spec, from the vendor's pages:
 * Pro and Enterprise plans only (another plan → 403), 5 requests a minute per organization (every
 * project of the fake is one organization; a 6th request within any 60 s → 429), a branch must be
 * one an agent job reported (`source.ref`; else 400 "Branch not found": the vendor does not document
 * that answer).
 *
 * A build is `queued` for its first quarter, `in_progress` until `buildMs` after it was asked for,
 * then `success` or `failure` (a branch whose job's latest prompt contains `[build-fail]`, or after
 * {@link FakePreviews.failNextBuilds}); computed lazily from the clock, like the jobs.
 */
import { randomBytes } from 'node:crypto';
import type { FakeAgentJob } from './agent-jobs.js';
import { errorReply, type Reply } from './reply.js';

/** What the fake's organization pays for: `pro` and `enterprise` get previews. */
export type FakePlan = 'free' | 'pro' | 'enterprise';

/** Options of the fake's previews. */
export interface FakePreviewsOptions {
  /** @defaultValue 'pro' */
  plan?: FakePlan;
  /** ms from the request to the build's end. @defaultValue 2000 */
  buildMs?: number;
  /** Preview requests per window per organization. @defaultValue 5 (the vendor's page) */
  perMinute?: number;
  /** The limit's sliding window, in ms. @defaultValue 60000 (a minute) */
  windowMs?: number;
  /**
   * How long the answer to a preview request takes, in ms (wall clock): the request is taken (and
   * recorded) when it arrives, its answer sent this much later, as over a slow network; a caller
   * that dies meanwhile never reads it. @defaultValue 0
   */
  answerDelayMs?: number;
}

/** One preview deployment the fake holds. */
export interface FakeDeployment {
  statusId: string;
  projectId: string;
  branch: string;
  /** Clock ms when it was asked for. */
  createdAt: number;
  /** Clock ms when its build ends. */
  endsAt: number;
  outcome: 'success' | 'failure';
  sha: string;
  message: string;
  /** How many times GET update-status read it. */
  reads: number;
}

/** Files every fake commit changes (a changed `.mdx` page, a new one, a removed one, the config). */
export const FAKE_FILES_CHANGED = {
  added: ['guides/python-sdk.mdx'],
  modified: ['guides/quickstart.mdx', 'docs.json'],
  removed: ['guides/legacy-setup.mdx'],
};

/** The last lines of a failed build's log (the error names a page and quotes MDX). */
export const FAKE_BUILD_ERROR = 'Error: guides/quickstart.mdx:14:3 Unexpected closing tag </Tabs>, expected </Tab>';

/** The fake's previews: the deployments, the plan, the per-minute limit and the two routes. */
export class FakePreviews {
  readonly deployments = new Map<string, FakeDeployment>();
  plan: FakePlan;
  buildMs: number;
  /** See {@link FakePreviewsOptions.answerDelayMs}. */
  readonly answerDelayMs: number;
  /** Requests answered 429 so far. */
  refusals = 0;
  private readonly perMinute: number;
  private readonly windowMs: number;
  /** Clock ms of the accepted preview requests of the last minute. */
  private accepted: number[] = [];
  private failing = 0;

  constructor(
    private readonly jobs: ReadonlyMap<string, FakeAgentJob>,
    opts: FakePreviewsOptions = {},
  ) {
    this.plan = opts.plan ?? 'pro';
    this.buildMs = opts.buildMs ?? 2000;
    this.answerDelayMs = opts.answerDelayMs ?? 0;
    this.perMinute = opts.perMinute ?? 5;
    this.windowMs = opts.windowMs ?? 60_000;
  }

  /** The next `n` builds fail (besides branches asked to with `[build-fail]`). */
  failNextBuilds(n = 1): void {
    this.failing += n;
  }

  /** POST /v1/project/preview/{projectId} at clock `at` (ms). */
  request(projectId: string, rawBody: string, at: number): Reply {
    if (this.plan === 'free') return errorReply(403, 'Preview deployments are available on Pro and Enterprise plans');
    this.accepted = this.accepted.filter((t) => t > at - this.windowMs);
    if (this.accepted.length >= this.perMinute) {
      this.refusals += 1;
      return errorReply(429, 'Rate limit exceeded');
    }
    let branch: unknown;
    try {
      branch = (JSON.parse(rawBody) as { branch?: unknown }).branch;
    } catch {
      return errorReply(400, 'Invalid JSON body');
    }
    if (typeof branch !== 'string' || branch.length < 1) return errorReply(400, 'branch: Required');
    const job = [...this.jobs.values()].find((j) => j.projectId === projectId && j.ref === branch);
    if (!job) return errorReply(400, 'Branch not found');
    this.accepted.push(at);
    const statusId = `st_${randomBytes(8).toString('hex')}`;
    const prompt = job.messages.at(-1) ?? '';
    const fail = prompt.includes('[build-fail]') || this.failing > 0;
    if (this.failing > 0) this.failing -= 1;
    this.deployments.set(statusId, {
      statusId,
      projectId,
      branch,
      createdAt: at,
      endsAt: at + this.buildMs,
      outcome: fail ? 'failure' : 'success',
      sha: randomBytes(20).toString('hex'),
      message: prompt.split('\n')[0]!.slice(0, 72),
      reads: 0,
    });
    return { status: 202, body: { statusId, previewUrl: previewUrlOf(branch) } };
  }

  /** GET /v1/project/update-status/{statusId} at clock `at` (ms). */
  status(statusId: string, at: number): Reply {
    const d = this.deployments.get(statusId);
    if (!d) return errorReply(404, 'Status not found');
    d.reads += 1;
    const status =
      at >= d.endsAt ? d.outcome : at >= d.createdAt + (d.endsAt - d.createdAt) / 4 ? 'in_progress' : 'queued';
    const ended = status === 'success' || status === 'failure';
    const subdomain = new URL(previewUrlOf(d.branch)).hostname.split('.')[0]!;
    return {
      status: 200,
      body: {
        _id: d.statusId,
        projectId: d.projectId,
        createdAt: new Date(d.createdAt).toISOString(),
        ...(ended ? { endedAt: new Date(d.endsAt).toISOString() } : {}),
        status,
        summary: ended ? (d.outcome === 'success' ? 'Preview deployed' : 'Build failed: 1 error in 1 page') : '',
        logs: logsOf(d, status),
        subdomain,
        ...(status === 'success' ? { screenshot: `https://screenshots.mintlify.test/${d.statusId}.png` } : {}),
        author: 'docs-agent',
        commit: { sha: d.sha, ref: d.branch, message: d.message, filesChanged: FAKE_FILES_CHANGED },
        source: 'api',
      },
    };
  }
}

/** `https://acme-<branch as a host label>.mintlify.site` (the vendor's form: <organization>-<branch>). */
export function previewUrlOf(branch: string): string {
  const label = branch
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50);
  return `https://acme-${label}.mintlify.site`;
}

function logsOf(d: FakeDeployment, status: string): string[] {
  const lines = ['Cloning repository', `Checking out ${d.branch}`];
  if (status === 'queued') return lines.slice(0, 1);
  lines.push('Installing dependencies', 'Building 138 pages');
  if (status === 'failure') lines.push('guides/quickstart.mdx', FAKE_BUILD_ERROR, 'Build failed with 1 error');
  if (status === 'success') lines.push('Build succeeded', 'Deployed preview');
  return lines;
}
