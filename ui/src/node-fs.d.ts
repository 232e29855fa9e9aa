/** The one Node API the tests use (the UI has no Node types): reading the theme's CSS file. */
declare module 'node:fs' {
  export function readFileSync(path: URL | string, encoding: 'utf8'): string;
}
