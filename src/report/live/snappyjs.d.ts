// Types for snappyjs (pure-JS Snappy block format; the package ships none).
declare module 'snappyjs' {
  export function compress<T extends Uint8Array | ArrayBuffer>(input: T): T;
  export function uncompress<T extends Uint8Array | ArrayBuffer>(input: T, maxLength?: number): T;
}
