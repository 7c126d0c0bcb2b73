import { request } from 'node:http';

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads any JSON it is answered
  json(): any;
}

/**
 * One request with exactly these headers (fetch treats Origin and the Access-Control-Request-*
 * headers as the browser's own), as a browser would send it.
 */
export function rawRequest(url: string, method: string, headers: Record<string, string> = {}, body?: string): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
