/**
 * What API Gateway, or a Lambda function URL, answers itself before any Vigil code runs: its own
 * `{"message": "…"}` (a function URL's `{"Message": "…"}`), not the contract's error shape. An HTTP
 * API cannot be made to answer otherwise (it has no gateway responses; its unknown routes alone go to
 * Vigil, by its `$default` route), so the client says what each means and how to fix it.
 */
const MEANINGS: Readonly<Record<number, { code: string; fix: string }>> = {
  403: {
    code: 'forbidden',
    fix:
      "the API refused the call's SigV4 signature. Client routes need AWS credentials whose IAM policy allows execute-api:Invoke on this API: " +
      "check AWS_PROFILE (or an expired SSO session: 'aws sso login'), that this machine's clock is right, and that the endpoint is this Vigil's API URL",
  },
  404: {
    code: 'route_not_found',
    fix: "API Gateway has no such route: point the endpoint at a Vigil stack's ApiUrl (or the gate's GateApiUrl) output, with no path after it",
  },
  413: {
    code: 'payload_too_large',
    fix: 'the body is past the request limit (6 MB reach a Lambda function): send fewer workflows or items per request',
  },
  429: {
    code: 'throttled',
    fix: "the route's rate limit was exceeded: retry later with backoff, or raise the route's throttle (infra/config/route-throttles.ts; a worker URL's: its reserved concurrency)",
  },
  500: {
    code: 'upstream_failed',
    fix: "the function behind the route failed or answered more than 6 MB; it is safe to retry, and the function's CloudWatch logs say why",
  },
  503: {
    code: 'upstream_timeout',
    fix: 'the function behind the route did not answer within 30 s and may still have applied the call: resend the same request',
  },
};

/** Gateway answers past 500 by the meaning of theirs: a function URL's 502 is API Gateway's 500, its 504 API Gateway's 503. */
const meaningOf = (status: number) => MEANINGS[status] ?? (status === 504 ? MEANINGS[503] : status >= 500 ? MEANINGS[500] : undefined);

/** The text of a gateway's own answer: an object with one key, `message` or `Message`. */
function gatewayText(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const keys = Object.keys(body);
  if (keys.length !== 1 || (keys[0] !== 'message' && keys[0] !== 'Message')) return undefined;
  const said = (body as Record<string, unknown>)[keys[0]];
  return typeof said === 'string' ? said : said === null ? '' : undefined;
}

/** The code and a clear message for API Gateway's (or a function URL's) own answer; none for any other body. */
export function gatewayAnswer(status: number, body: unknown, call: string): { code: string; message: string } | undefined {
  const said = gatewayText(body);
  const meaning = meaningOf(status);
  if (said === undefined || meaning === undefined) return undefined;
  const quoted = said === '' ? '' : ` "${said.slice(0, 200)}"`;
  return { code: meaning.code, message: `${call}: API Gateway answered ${status}${quoted} itself, before Vigil saw the call: ${meaning.fix}.` };
}
