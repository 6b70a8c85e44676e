/**
 * The one Node global the bundled contracts read: the normalizer measures an envelope in UTF-8
 * bytes with `Buffer.byteLength`. esbuild puts this in its place (build.mjs, `inject`).
 */
export const Buffer = {
  byteLength: (text: string): number => new TextEncoder().encode(text).length,
};
