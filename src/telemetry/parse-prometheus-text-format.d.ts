// Types for the parse-prometheus-text-format package, which ships none.
declare module 'parse-prometheus-text-format' {
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
