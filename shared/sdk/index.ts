// The worker SDK: `import { startWorkflow, claim } from 'vigil/sdk'`.
export { startWorkflow, type WorkflowHandle, type WorkflowOptions, type ProgressUpdate, type ExtensionReason } from './workflow.js';
export { claim, TerminateRequest, type AgentOptions, type AttemptHandle } from './agent.js';
export { CallBudgetSpentError, RequestNotSignedError, VigilApiError, VigilUnreachableError } from './errors.js';
export { VigilHttp, type VigilHttpOptions } from './vigil-http.js';
export { sigV4Signer, regionOfApiGatewayUrl, type SigV4Options } from './sigv4-signer.js';
export type { RetryPolicy } from './backoff.js';
export type { RequestSigner } from './request-signer.js';
