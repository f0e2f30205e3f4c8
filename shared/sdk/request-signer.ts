/** An HTTP request about to be sent; a signer returns the headers to add. */
export interface OutgoingRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
}

export type RequestSigner = (request: OutgoingRequest) => Promise<Record<string, string>>;
