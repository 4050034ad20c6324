// Prometheus text exposition → flat samples, through the parse-prometheus-text-format parser.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';

export type PromType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface PromSample {
  /** The series name as written (`x_bucket`, `x_sum`, `x_count` for a histogram's parts). */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface PromText {
  /** Family name → declared type (from `# TYPE`). */
  types: Map<string, PromType>;
  samples: PromSample[];
}

interface ParsedFamily {
  name: string;
  type: string;
  metrics: { value?: string; labels?: Record<string, string> }[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const TYPE_LINE = /^#\s*TYPE\s+(\S+)\s+(\S+)\s*$/gm;

/**
 * Parse a /metrics body. The parser folds every histogram or summary family into one label-less sample (losing the
 * labels, `_sum` and `_count` of labelled series, as vLLM's all are), so those families are declared `untyped`
 * before parsing: each `_bucket`/`_sum`/`_count` line then comes back as its own sample with its labels, and the
 * declared types are kept here. Throws when the text is not Prometheus text.
 */
export function parsePromText(text: string): PromText {
  const types = new Map<string, PromType>();
  const plain = text.replace(TYPE_LINE, (_m, name: string, type: string) => {
    const t = type.toLowerCase() as PromType;
    types.set(name, t);
    return t === 'histogram' || t === 'summary' ? `# TYPE ${name} untyped` : `# TYPE ${name} ${t}`;
  });
  // The parser drops a last line that has no newline after it.
  const families = parsePrometheusTextFormat(plain.endsWith('\n') ? plain : plain + '\n') as ParsedFamily[];
  const samples: PromSample[] = [];
  for (const f of families) {
    // The parser reads any "word value" line as a sample: an HTML or JSON page is caught by its names.
    if (!METRIC_NAME.test(f.name)) throw new Error(`not Prometheus text (no metric is named "${f.name.slice(0, 40)}")`);
    for (const m of f.metrics) {
      if (m.value === undefined) continue;
      samples.push({ name: f.name, labels: m.labels ?? {}, value: Number(m.value) });
    }
  }
  return { types, samples };
}

/** Whether a response looks like Prometheus text: a text content type (or none) and at least one sample parsed. */
export function isPromText(contentType: string | undefined, parsed: PromText | undefined): parsed is PromText {
  const ct = (contentType ?? '').toLowerCase();
  if (ct && !ct.startsWith('text/plain') && !ct.startsWith('application/openmetrics-text')) return false;
  return parsed !== undefined && parsed.samples.length > 0;
}
