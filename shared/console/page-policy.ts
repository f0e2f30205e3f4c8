import { createHash } from 'node:crypto';

/** The `'sha256-…'` source of each inline `<style>` of the page: the only inline code it may use. */
const inlineStyleHashes = (html: string): string[] =>
  [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map(([, css = '']) => `'sha256-${createHash('sha256').update(css, 'utf8').digest('base64')}'`);

/**
 * The headers the console's page is served with. It runs its own script and nothing else: the
 * console acts with the operator's AWS credentials, so a script slipped into the page (through an
 * id or a message Vigil echoes) must not run. It calls its own server only, and its address carries
 * the run's key (`/?key=…`), which no request may take elsewhere as a Referer.
 */
export function pageHeaders(html: string): Record<string, string> {
  const policy = [
    "default-src 'none'",
    "script-src 'self'",
    `style-src ${inlineStyleHashes(html).join(' ') || "'none'"}`,
    "connect-src 'self'",
    "img-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ];
  return { 'content-security-policy': policy.join('; '), 'referrer-policy': 'no-referrer' };
}
