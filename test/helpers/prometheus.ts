import parsePrometheusTextFormat, { type PromFamily, type PromSample } from 'parse-prometheus-text-format';

/**
 * A scrape parsed by a Prometheus text-format parser (parse-prometheus-text-format, whose output is
 * prom2json's), with lookups by metric name and labels.
 *
 * The parser merges a labelled histogram's series into one (it keeps only unlabelled histograms
 * whole), so the text is parsed twice: as it is, for each family's type and help, and without its
 * `# HELP`/`# TYPE` lines, which gives every sample (`x_bucket`, `x_sum`, `x_count` included) with
 * its own labels as an untyped family.
 */
export class Scrape {
  readonly families: Map<string, PromFamily>;
  private readonly samples = new Map<string, PromSample[]>();

  constructor(text: string) {
    this.families = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f]));
    for (const f of parsePrometheusTextFormat(text.replace(/^#.*\n/gm, ''))) {
      this.samples.set(f.name, [...(this.samples.get(f.name) ?? []), ...(f.metrics as PromSample[])]);
    }
  }

  /** The family's type (`COUNTER`, `GAUGE`, `HISTOGRAM` …), or undefined when absent. */
  type(name: string): string | undefined {
    return this.families.get(name)?.type;
  }

  /** The value of the first sample named `name` whose labels include `labels`, or undefined. */
  value(name: string, labels: Record<string, string> = {}): number | undefined {
    const m = this.samples.get(name)?.find((s) => matches(s.labels, labels));
    return m === undefined ? undefined : Number(m.value);
  }

  /** Sum over every sample named `name` whose labels include `labels` (0 when none). */
  sum(name: string, labels: Record<string, string> = {}): number {
    return (this.samples.get(name) ?? [])
      .filter((s) => matches(s.labels, labels))
      .reduce((n, s) => n + Number(s.value), 0);
  }

  /** The histogram series whose labels include `labels`: its count, sum and cumulative buckets by `le`. */
  histogram(
    name: string,
    labels: Record<string, string> = {},
  ): { count: number; sum: number; buckets: Map<number, number> } | undefined {
    const count = this.value(`${name}_count`, labels);
    if (count === undefined) return undefined;
    const buckets = (this.samples.get(`${name}_bucket`) ?? []).filter((s) => matches(s.labels, labels));
    return {
      count,
      sum: this.value(`${name}_sum`, labels) ?? NaN,
      buckets: new Map(
        buckets.map((b) => [b.labels?.le === '+Inf' ? Infinity : Number(b.labels?.le), Number(b.value)]),
      ),
    };
  }

  /** Label sets of every sample named `name`. */
  series(name: string): Array<Record<string, string>> {
    return (this.samples.get(name) ?? []).map((s) => s.labels ?? {});
  }
}

function matches(have: Record<string, string> | undefined, want: Record<string, string>): boolean {
  return Object.entries(want).every(([k, v]) => have?.[k] === v);
}
