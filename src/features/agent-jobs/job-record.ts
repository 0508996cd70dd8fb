/**
 * A job's record: what it holds, how it is kept in its Redis hash (strings), and the Lua scripts
 * that change it atomically.
 */
import { currentEnterpriseRef } from '../../platform/request-context.js';
import { readerTitle } from '../../platform/slack/markup.js';
import { quoteToken, truncate } from '../../platform/slack/limits.js';

/** Most characters of a job's `about` line that are kept (the record) and shown (status message, App Home). */
export const ABOUT_MAX = 150;

/** Most characters of a job id shown in a message (as many as a button's feedback value carries). */
export const JOB_ID_SHOWN_MAX = 100;

/**
 * A job id (the docs API's) as inline code in a message: `quoteToken`'s rules (backticks replaced,
 * whitespace one space, `&<>` escaped), at most {@link JOB_ID_SHOWN_MAX} characters.
 */
export function jobIdCode(jobId: string): string {
  return `\`${quoteToken(jobId, JOB_ID_SHOWN_MAX)}\``;
}

/** Where a preview deployment stands, as the status message's plan shows it. */
export const PREVIEW_STAGES = ['queued', 'building', 'ready', 'failed', 'slow', 'not_started', 'uncertain'] as const;
/** One of {@link PREVIEW_STAGES}. */
export type PreviewStage = (typeof PREVIEW_STAGES)[number];

/** A job's state as the bot shows it: `starting` and `start_failed` before the job exists at the vendor. */
export type StatusState =
  | 'starting'
  | 'start_failed'
  | 'active'
  | 'completed'
  | 'failed'
  | 'archived'
  | 'timeout'
  /** The process died while the create request was in flight: the job may or may not exist. */
  | 'uncertain';

/**
 * What the bot remembers of an agent job, in Redis (hash `{prefix}:agent-job:{jobId}`), so that a
 * restart or another replica can carry on. Times are epoch ms.
 */
export interface JobRecord {
  jobId: string;
  /** The docs project the job lives in (the channel's when it was created; follow-ups and polls keep it). */
  projectId: string;
  teamId: string;
  /**
   * OAuth mode: the Grid org of the installation the job was started through, and whether that
   * install is org-wide: with `teamId`, whose token its poller, status edits and previews use
   * (absent: single-token mode, or the workspace's own install).
   */
  enterpriseId?: string;
  enterpriseInstall?: boolean;
  channel: string;
  /** ts of the thread root: the status message, or the message that started the job. */
  threadTs: string;
  /** ts of the status message (edited in place). */
  statusTs: string;
  requester: string;
  instruction: string;
  createdAt: number;
  /** 0 for the first run; +1 for each follow-up. Announcements are keyed by it. */
  cycle: number;
  /** Who sent the latest instruction (the requester, or the author of the latest follow-up). */
  cycleRequester: string;
  cycleStartedAt: number;
  state: StatusState;
  prLink: string | null;
  /** When the latest cycle ended (0 while active). */
  endedAt: number;
  /** Extra line on the status message (e.g. a follow-up interrupted the run); '' for none. */
  note: string;
  /** Reaction currently on the thread root ('' for none). */
  reaction: string;
  /** Permalink of the thread root, fetched once when first needed ('' until then). */
  permalink: string;
  /** ts of the message that carries the state reaction: the thread root, or the status message when the root is not the job's own (a digest). */
  reactionTs: string;
  /** Authors of follow-ups that a later follow-up interrupted (comma-separated user ids): mentioned too at the end. */
  alsoMention: string;
  /**
   * The conversations whose messages went to the agent with the job (comma-separated channel ids;
   * '' for none): a follow-up is taken only from people who are members of every one of them.
   */
  contextFrom: string;
  /** How many Slack messages went to the agent with the instruction (absent: none or unknown). */
  contextMessages?: number;
  /** What the quoted text that went with the instruction is about, one line (StartJobRequest's `about`). */
  about?: string;
  /** The repository the agent works in (the API's `source.repository`, a URL), once reported ('' or absent: not yet). */
  repository?: string;
  /** The branch the agent works on (the API's `source.ref`), once reported. */
  branch?: string;
  /** The latest 👍/👎 given to the job's result (the feedback buttons); absent: none yet. */
  rating?: 'positive' | 'negative';
  /** Where the preview of the latest run's pull request stands (the status message's plan); absent: none asked. */
  preview?: PreviewStage;
  /** The preview's URL as the API gave it (shown only when it is a safe https link). */
  previewUrl?: string;
  /** Fingerprint of what the status message last showed ('' or absent: unknown), so an edit that changes nothing is not sent. */
  shown?: string;
}

// KEYS[1] = the job's hash; ARGV = TTL (s), field/value pairs. Writes the record only if absent.
export const CREATE_IF_ABSENT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1
`;

// KEYS[1] = a thread index key; ARGV = jobId, TTL (s), the pending mark. A thread belongs to its
// first job: the key is set only while free, pending (a job being created) or already this job's.
export const CLAIM_THREAD = `
local v = redis.call('GET', KEYS[1])
if v and v ~= ARGV[3] and v ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return 1
`;

// KEYS[1] = the job's hash; ARGV = fromCycle ('' = any), TTL (s), field/value pairs.
// Begins cycle + 1 (unless fromCycle is given and the record moved past it) and returns the cycle.
export const BEGIN_CYCLE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return nil end
local current = tonumber(redis.call('HGET', KEYS[1], 'cycle') or '0')
if ARGV[1] ~= '' and current ~= tonumber(ARGV[1]) then return current end
local cycle = redis.call('HINCRBY', KEYS[1], 'cycle', 1)
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('EXPIRE', KEYS[1], ARGV[2])
return cycle
`;

const NUMERIC: ReadonlySet<keyof JobRecord> = new Set(['createdAt', 'cycle', 'cycleStartedAt', 'endedAt']);

/** A record (or some of its fields) as hash fields: numbers as decimal strings, null as ''. */
export function toHash(rec: Partial<JobRecord>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(rec)) {
    if (v === undefined) continue;
    out[k] = v === null ? '' : String(v);
  }
  return out;
}

/**
 * A record read back from its hash: numbers parsed, absent optional fields defaulted.
 * @param defaultProjectId - the project of records written before jobs kept theirs (DOCS_PROJECT_ID).
 */
export function fromHash(h: Record<string, string>, defaultProjectId = ''): JobRecord {
  const rec: Record<string, unknown> = { ...h };
  rec.projectId = h.projectId || defaultProjectId;
  for (const k of NUMERIC) rec[k] = Number(h[k] ?? 0);
  rec.prLink = h.prLink ? h.prLink : null;
  rec.note = h.note ?? '';
  rec.reaction = h.reaction ?? '';
  rec.permalink = h.permalink ?? '';
  rec.reactionTs = h.reactionTs || h.threadTs;
  rec.alsoMention = h.alsoMention ?? '';
  rec.contextFrom = h.contextFrom ?? '';
  if (h.shown) rec.shown = h.shown;
  if (h.repository) rec.repository = h.repository;
  if (h.branch) rec.branch = h.branch;
  if (Number(h.contextMessages) > 0) rec.contextMessages = Number(h.contextMessages);
  if (h.rating === 'positive' || h.rating === 'negative') rec.rating = h.rating;
  if ((PREVIEW_STAGES as readonly string[]).includes(h.preview ?? '')) rec.preview = h.preview;
  if (h.previewUrl) rec.previewUrl = h.previewUrl;
  if (h.enterpriseInstall !== undefined) rec.enterpriseInstall = h.enterpriseInstall === 'true';
  return rec as unknown as JobRecord;
}

/** What a new record takes from the start request (agent-jobs' StartJobRequest). */
interface NewJobRequest {
  teamId: string;
  channel: string;
  requester: string;
  instruction: string;
  reactOnStatusMessage?: boolean;
  contextFrom?: string[];
  contextMessages?: number;
  about?: string;
}

/** The record of a job just created at the vendor: active, cycle 0, no PR yet. `p.now` in epoch ms. */
export function newJobRecord(
  req: NewJobRequest,
  p: { jobId: string; projectId: string; threadTs: string; statusTs: string; now: number },
): JobRecord {
  return {
    jobId: p.jobId,
    projectId: p.projectId,
    teamId: req.teamId,
    ...currentEnterpriseRef(),
    channel: req.channel,
    threadTs: p.threadTs,
    statusTs: p.statusTs,
    requester: req.requester,
    instruction: req.instruction,
    createdAt: p.now,
    cycle: 0,
    cycleRequester: req.requester,
    cycleStartedAt: p.now,
    state: 'active',
    prLink: null,
    endedAt: 0,
    note: '',
    reaction: '',
    permalink: '',
    reactionTs: req.reactOnStatusMessage ? p.statusTs : p.threadTs,
    alsoMention: '',
    contextFrom: (req.contextFrom ?? []).join(','),
    ...(req.contextMessages ? { contextMessages: req.contextMessages } : {}),
    ...(req.about ? { about: aboutLine(req.about) } : {}),
  };
}

/** A job's `about` as its record keeps it: one line, at most {@link ABOUT_MAX} (cut with `…`, never inside a surrogate pair). */
function aboutLine(about: string): string {
  return truncate(about.replace(/\s+/g, ' ').trim(), ABOUT_MAX);
}

/** Slack: agents.sessions.setStatus `title`, "max 200 characters". */
const SESSION_TITLE_MAX = 200;

/**
 * The title of a job's agent session: what the quoted text that went with it is about (its About
 * line as the record keeps it: a search term and its count, a question), else the instruction;
 * never the prompt. Either may be someone else's words, so it is made inert ({@link readerTitle}:
 * no mention, link or formatting can form, whether Slack shows titles plain or as mrkdwn). The same
 * from a start request and from its record (a follow-up sends it again).
 */
export function sessionTitle(job: { instruction: string; about?: string | undefined }): string {
  const about = job.about ? readerTitle(aboutLine(job.about), SESSION_TITLE_MAX) : '';
  return about || readerTitle(job.instruction, SESSION_TITLE_MAX);
}
