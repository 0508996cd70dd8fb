/** Types of parse-prometheus-text-format 1.1.1 (it ships none): prom2json-compatible output. */
declare module 'parse-prometheus-text-format' {
  /** A counter, gauge or untyped sample. */
  export interface PromSample {
    labels?: Record<string, string>;
    value: string;
  }
  /** A histogram series: cumulative bucket counts by `le`, with count and sum. */
  export interface PromHistogram {
    labels?: Record<string, string>;
    buckets: Record<string, string>;
    count: string;
    sum: string;
  }
  export interface PromFamily {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: Array<PromSample | PromHistogram>;
  }
  /** Parses the Prometheus text exposition format. @throws on a line it cannot parse. */
  export default function parsePrometheusTextFormat(text: string): PromFamily[];
}
