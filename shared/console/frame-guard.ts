/**
 * Headers on every answer of a local listener and of `vigil console`: no other site may frame the
 * console. Framed, it would load with its own Host and no Origin, its own calls would pass the
 * same-machine check, and a page could trick the operator into clicking (a DLQ retry, an answer,
 * a fault switch) under the operator's credentials. `nosniff` keeps JSON from being read as a script.
 */
export const NOT_FRAMEABLE = {
  'x-frame-options': 'DENY',
  'content-security-policy': "frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
} as const;
