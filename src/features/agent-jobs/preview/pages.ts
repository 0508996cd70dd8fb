/**
 * The pages a commit changed, as the preview message lists them (pure): every file named, as inert
 * text; a page (`.mdx`/`.md`) added or modified linked on the preview, when its path is plain and the
 * preview is on https. Source of the shape: deployments-openapi.json, `commit.filesChanged`.
 */
import { safeUrl, SLACK_LIMITS, truncate, quoteToken } from '../../../platform/slack/limits.js';

/** The files of a commit, by change (spec: `commit.filesChanged`). */
export interface FilesChanged {
  added?: string[];
  modified?: string[];
  removed?: string[];
}

/** How a file changed. */
export type Change = 'added' | 'modified' | 'removed';

/** One changed file as listed: its path, how it changed, and its page on the preview (when linkable). */
interface ChangedFile {
  path: string;
  change: Change;
  url?: string;
}

/** Files listed in a preview message; the rest are counted ("and 12 more"). */
const MAX_FILES_LISTED = 15;

/** A path the bot links: letters, digits, `. _ - /`, no `..`, not absolute, at most 200 characters. */
const PLAIN_PATH = /^(?!\/)(?!.*\.\.)[A-Za-z0-9._/-]{1,200}$/;
const PAGE_EXT = /\.mdx?$/;

/** The preview's base when it can be linked: a safe `https://` URL, without trailing slashes. */
export function previewBase(previewUrl: string | undefined): string | undefined {
  const url = safeUrl(previewUrl);
  return url?.startsWith('https://') ? url.replace(/\/+$/, '') : undefined;
}

/**
 * The page of `path` on the preview at `base`: `guides/quickstart.mdx` → `<base>/guides/quickstart`,
 * `guides/index.mdx` → `<base>/guides`; undefined for a file that is not a page or a path with odd
 * characters.
 */
export function pageUrl(base: string, path: string): string | undefined {
  if (!PLAIN_PATH.test(path) || !PAGE_EXT.test(path)) return undefined;
  const slug = path.replace(PAGE_EXT, '').replace(/(^|\/)index$/, '');
  return slug ? `${base}/${slug}` : base;
}

/** The changed files in the order added, modified, removed; pages linked when the preview can be (never removed ones). */
export function changedFiles(files: FilesChanged | undefined, previewUrl: string | undefined): ChangedFile[] {
  const base = previewBase(previewUrl);
  const out: ChangedFile[] = [];
  for (const change of ['added', 'modified', 'removed'] as const) {
    for (const path of files?.[change] ?? []) {
      if (typeof path !== 'string' || !path) continue;
      const url = base && change !== 'removed' ? pageUrl(base, path) : undefined;
      out.push({ path, change, ...(url ? { url } : {}) });
    }
  }
  return out;
}

/** A path as inert text inside inline code: backticks replaced, `&<>` escaped, at most 120 characters. */
export function inertPath(path: string): string {
  return `\`${quoteToken(path, 120)}\``;
}

/** The mrkdwn list of changed files (≤ {@link MAX_FILES_LISTED} lines, then a count), within a section's limit. */
export function filesText(files: readonly ChangedFile[]): string {
  const lines = files.slice(0, MAX_FILES_LISTED).map((f) => {
    const name = inertPath(f.path);
    return `• ${f.change}: ${f.url ? `<${f.url}|${name}>` : name}`;
  });
  if (files.length > MAX_FILES_LISTED) lines.push(`• and ${files.length - MAX_FILES_LISTED} more`);
  return truncate(lines.join('\n'), SLACK_LIMITS.sectionText);
}
