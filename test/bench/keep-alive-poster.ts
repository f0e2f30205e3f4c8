import { Agent, request } from 'node:http';
import type { RawAnswer } from '../support/vigil-client.js';

/**
 * The bench's load generator: JSON POSTs over `node:http` keep-alive sockets. It shares the 2 cores
 * with the server it measures, and `fetch` (undici) spent about 0.7 ms of CPU per request there, a
 * third of what the server spent; this spends a fraction of that, so the rates measure the server.
 */
export class KeepAlivePoster {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  private readonly url: URL;

  constructor(baseUrl: string) {
    this.url = new URL(baseUrl);
  }

  post(path: string, body: string, headers: Record<string, string>): Promise<RawAnswer> {
    return new Promise((resolve, reject) => {
      const outgoing = request(
        {
          agent: this.agent,
          host: this.url.hostname,
          port: this.url.port,
          method: 'POST',
          path,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {
              // not JSON: keep the text for the error message
            }
            resolve({ status: response.statusCode ?? 0, body: parsed });
          });
          response.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
