/**
 * `text` as an http(s) URL, or undefined. `localhost:4701` parses as a URL whose scheme is
 * `localhost:`: fetch can never call it, and every call would fail as if Vigil did not answer.
 */
export function httpUrl(text: string): URL | undefined {
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
}
