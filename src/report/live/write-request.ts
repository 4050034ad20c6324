// Prometheus remote write 1.0: a registry's values as a protobuf WriteRequest (encoded by hand: four small messages).
import type { MetricObjectWithValues, MetricValue } from 'prom-client';

export interface Sample {
  /** Label pairs including __name__. */
  labels: Record<string, string>;
  value: number;
  timestampMs: number;
}

/**
 * The series of prom-client's JSON view: counters and gauges as they are, histograms as `_bucket{le}`, `_sum` and
 * `_count` (prom-client already names those values). Labels are sorted by name, as remote write requires.
 */
export function samplesOf(metrics: MetricObjectWithValues<MetricValue<string>>[], timestampMs: number): Sample[] {
  const out: Sample[] = [];
  for (const m of metrics)
    for (const v of m.values) {
      const name = (v as { metricName?: string }).metricName ?? m.name;
      const labels: Record<string, string> = { __name__: name };
      for (const [k, x] of Object.entries(v.labels)) if (x !== undefined && x !== '') labels[k] = String(x);
      out.push({ labels, value: v.value, timestampMs });
    }
  return out;
}

/** Protobuf writer for the few wire types a WriteRequest uses (varint, 64-bit, length-delimited). */
class Writer {
  private bytes: number[] = [];
  varint(n: number): this {
    // Values here are below 2^53 (lengths, ms timestamps): split into 7-bit groups without 32-bit bitwise overflow.
    let v = n;
    while (v >= 0x80) {
      this.bytes.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    this.bytes.push(v);
    return this;
  }
  tag(field: number, wire: number): this {
    return this.varint(field * 8 + wire);
  }
  double(field: number, x: number): this {
    const b = Buffer.alloc(8);
    b.writeDoubleLE(x);
    this.tag(field, 1);
    for (const c of b) this.bytes.push(c);
    return this;
  }
  bytesField(field: number, data: Uint8Array): this {
    this.tag(field, 2).varint(data.length);
    for (const c of data) this.bytes.push(c);
    return this;
  }
  string(field: number, s: string): this {
    return this.bytesField(field, Buffer.from(s, 'utf8'));
  }
  finish(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}

/**
 * WriteRequest { repeated TimeSeries timeseries = 1; }
 * TimeSeries { repeated Label labels = 1; repeated Sample samples = 2; }
 * Label { string name = 1; string value = 2; }  Sample { double value = 1; int64 timestamp = 2; }
 */
export function encodeWriteRequest(samples: readonly Sample[]): Uint8Array {
  const req = new Writer();
  for (const s of samples) {
    const ts = new Writer();
    for (const name of Object.keys(s.labels).sort()) ts.bytesField(1, new Writer().string(1, name).string(2, s.labels[name]).finish());
    const sample = new Writer().double(1, s.value);
    // int64 timestamp as a varint; ms since 1970 are positive.
    sample.tag(2, 0).varint(Math.max(0, Math.round(s.timestampMs)));
    ts.bytesField(2, sample.finish());
    req.bytesField(1, ts.finish());
  }
  return req.finish();
}
