import { ArchiveUnavailableError, type ArchiveStore } from './archive-store';
import { amzDate, sha256Hex, signV4 } from './sigv4';

export interface S3ArchiveOptions {
  /** The service's URL (https://s3.eu-west-1.amazonaws.com, http://127.0.0.1:9000): path-style requests. */
  endpoint: string;
  bucket: string;
  region: string;
  /** Prepended to every object name (`flex/archive/`). */
  prefix: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/**
 * Archives in an S3-compatible bucket over plain HTTP (fetch), each request signed with AWS
 * Signature V4 (sigv4.ts); the payload's hash is signed too, so S3 refuses a body altered on the
 * way. A location is `s3://<bucket>/<key>`. PUT replaces an object whole, as the directory's rename.
 */
export class S3ArchiveStore implements ArchiveStore {
  readonly kind = 's3';

  constructor(private readonly options: S3ArchiveOptions) {}

  async put(name: string, bytes: Buffer): Promise<string> {
    const key = `${this.options.prefix}${name}`;
    const location = `s3://${this.options.bucket}/${key}`;
    const headers = { 'content-type': 'application/gzip', 'content-length': String(bytes.length) };
    await this.request('PUT', location, key, headers, bytes);
    return location;
  }

  async get(location: string): Promise<Buffer> {
    const prefix = `s3://${this.options.bucket}/`;
    if (!location.startsWith(prefix))
      throw new ArchiveUnavailableError(location, `not in the configured bucket ${this.options.bucket}`);
    return this.request('GET', location, location.slice(prefix.length), {});
  }

  private async request(
    method: 'GET' | 'PUT',
    location: string,
    key: string,
    extra: Record<string, string>,
    body?: Buffer,
  ): Promise<Buffer> {
    const { endpoint, bucket, region, accessKeyId, secretAccessKey } = this.options;
    const base = endpoint.replace(/\/+$/, '');
    const path = [bucket, ...key.split('/')].map(encodeURIComponent).join('/');
    const url = new URL(`${base}/${path}`);
    const payloadHash = sha256Hex(body ?? '');
    const headers = signV4(
      { method, url, headers: { ...extra, 'x-amz-content-sha256': payloadHash }, payloadHash },
      { accessKeyId, secretAccessKey, region, service: 's3' },
      amzDate(new Date()),
    );
    let response: Response;
    try {
      const { host: _host, ...sent } = headers;
      // A copy on an ArrayBuffer: a Buffer is no BodyInit to the DOM's typings (the browser tests' tsconfig).
      const payload = body && new Uint8Array(body);
      response = await fetch(url, { method, headers: sent, body: payload });
    } catch (error) {
      throw new ArchiveUnavailableError(location, `${method} failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const bytes = Buffer.from(await response.arrayBuffer());
    if (!response.ok)
      throw new ArchiveUnavailableError(
        location,
        `${method} answered ${response.status}: ${bytes.toString('utf8').slice(0, 300)}`,
      );
    return bytes;
  }
}
