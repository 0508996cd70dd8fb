/**
 * What the fake Slack's Block Kit checks collect: one line per broken rule, worded the way Slack
 * words them in `response_metadata.messages` of an `invalid_blocks` / `invalid_arguments` answer
 * (`[ERROR] must be less than 151 characters [json-pointer:/blocks/0/text/text]`), with the JSON
 * pointer of the offending field. Lengths are counted in UTF-16 code units, as Slack counts them.
 */
import { obj, type Json } from '../method.js';

/** The rules of one text object: its longest text, whether it must be `plain_text`. */
export interface TextRule {
  max: number;
  plainOnly?: boolean;
}

/** The broken rules found in one payload, and the small checks every block and element uses. */
export class Problems {
  /** `[ERROR] <what> [json-pointer:<path>]`, in the order found. */
  readonly messages: string[] = [];

  /** Record that the field at `path` breaks a rule. */
  add(path: string, what: string): void {
    this.messages.push(`[ERROR] ${what} [json-pointer:${path}]`);
  }

  /** `v` as an object, or a problem (and undefined) when it is not one. */
  object(path: string, v: unknown): Json | undefined {
    const o = obj(v);
    if (!o) this.add(path, 'must be an object');
    return o;
  }

  /** An optional string of at most `max` characters (`required`: it must be there and not empty). */
  string(path: string, v: unknown, max: number, required = false): void {
    if (v === undefined || v === null) {
      if (required) this.add(path, 'missing required field');
      return;
    }
    if (typeof v !== 'string') return this.add(path, 'must be a string');
    if (required && v === '') return this.add(path, 'must be more than 0 characters');
    if (v.length > max) this.add(path, `must be less than ${max + 1} characters`);
  }

  /** An array of `min`–`max` items (absent is fine unless `required`); the items when it is one. */
  array(path: string, v: unknown, min: number, max: number, required = true): unknown[] {
    if (v === undefined && !required) return [];
    if (!Array.isArray(v)) {
      this.add(path, v === undefined ? 'missing required field' : 'must provide an array');
      return [];
    }
    if (v.length < min) this.add(path, `must provide at least ${min} items`);
    if (v.length > max) this.add(path, `no more than ${max} items allowed`);
    return v;
  }

  /**
   * A text object (Block Kit "Text object"): `type` `plain_text` or `mrkdwn` (only `plain_text`
   * where `rule.plainOnly`), a `text` of 1 to `rule.max` characters.
   */
  text(path: string, v: unknown, rule: TextRule, required = true): void {
    if (v === undefined) {
      if (required) this.add(path, 'missing required field');
      return;
    }
    const t = this.object(path, v);
    if (!t) return;
    if (t.type !== 'plain_text' && (rule.plainOnly || t.type !== 'mrkdwn'))
      this.add(`${path}/type`, rule.plainOnly ? 'must be plain_text' : 'must be plain_text or mrkdwn');
    this.string(`${path}/text`, t.text, rule.max, true);
  }
}
