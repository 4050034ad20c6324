// The part of jstat's API tokenflood uses (the package ships no types).
declare module 'jstat' {
  interface Dist1 { cdf(x: number, df: number): number; inv(p: number, df: number): number }
  interface Dist2 { cdf(x: number, a: number, b: number): number; inv(p: number, a: number, b: number): number }
  export const jStat: { studentt: Dist1; normal: Dist2; gamma: Dist2; binomial: { cdf(k: number, n: number, p: number): number } };
}
