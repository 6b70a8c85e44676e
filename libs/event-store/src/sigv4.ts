import { createHash, createHmac } from 'node:crypto';

/**
 * AWS Signature Version 4 (the "Authorization" header form), enough for S3-compatible PUT and GET:
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html.
 * Shown against AWS's published examples in sigv4.unit.spec.ts.
 */
export interface SigV4Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  service: string;
}

export interface SigV4Request {
  method: string;
  url: URL;
  /** Headers to sign besides host and x-amz-date (which are added). */
  headers: Record<string, string>;
  /** The payload's SHA-256 (hex), or `UNSIGNED-PAYLOAD`. */
  payloadHash: string;
}

export const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** `20130524T000000Z`: the form x-amz-date takes. */
export function amzDate(at: Date): string {
  return at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/** The request's headers with host, x-amz-date and Authorization added. */
export function signV4(
  request: SigV4Request,
  credentials: SigV4Credentials,
  date: string,
): Record<string, string> {
  const headers: Record<string, string> = { ...request.headers, host: request.url.host, 'x-amz-date': date };
  const canonical = canonicalHeaders(headers);
  const signedHeaders = canonical.map(([name]) => name).join(';');
  const canonicalRequest = [
    request.method,
    canonicalPath(request.url.pathname),
    canonicalQuery(request.url.searchParams),
    ...canonical.map(([name, value]) => `${name}:${value}`),
    '',
    signedHeaders,
    request.payloadHash,
  ].join('\n');
  const scope = `${date.slice(0, 8)}/${credentials.region}/${credentials.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', date, scope, sha256Hex(canonicalRequest)].join('\n');
  const signature = hmac(signingKey(credentials, date.slice(0, 8)), stringToSign).toString('hex');
  const authorization =
    `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, ` +
    `SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return { ...headers, authorization };
}

function signingKey(credentials: SigV4Credentials, day: string): Buffer {
  const dateKey = hmac(`AWS4${credentials.secretAccessKey}`, day);
  return hmac(hmac(hmac(dateKey, credentials.region), credentials.service), 'aws4_request');
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/** Lower-case names, values trimmed with inner runs of spaces as one, sorted by name. */
function canonicalHeaders(headers: Record<string, string>): Array<[string, string]> {
  return Object.entries(headers)
    .map(([name, value]): [string, string] => [name.toLowerCase(), value.trim().replace(/\s+/g, ' ')])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Each segment URI-encoded once (S3's rule), from its decoded form. */
function canonicalPath(pathname: string): string {
  return pathname
    .split('/')
    .map((segment) => uriEncode(decodeURIComponent(segment)))
    .join('/');
}

function canonicalQuery(params: URLSearchParams): string {
  return [...params.entries()]
    .map(([k, v]) => [uriEncode(k), uriEncode(v)])
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

/** RFC 3986: every byte but the unreserved characters percent-encoded, upper-case hex. */
function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
