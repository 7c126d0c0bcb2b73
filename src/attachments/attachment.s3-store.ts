import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../config.js';
import type { Logger } from '../shared/logger.js';
import type { AttachmentStore } from './attachment.store.js';

/**
 * An S3-compatible bucket (AWS S3, MinIO, Ceph, R2...) through the AWS SDK v3. Checksums are sent
 * only where the API requires them: the SDK's default sends streamed bodies `aws-chunked` with a
 * trailing checksum, which S3-compatible servers that do not know that encoding store as it came
 * (the bytes wrapped in chunk headers). The service keeps each file's sha256 itself.
 */
export class S3AttachmentStore implements AttachmentStore {
  readonly kind = 'S3';
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(config: Config, readonly incomingDir: string, log: Logger) {
    this.bucket = config.S3_BUCKET!;
    this.prefix = config.S3_PREFIX;
    this.client = new S3Client({
      region: config.S3_REGION,
      endpoint: config.S3_ENDPOINT,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
      credentials: config.S3_ACCESS_KEY_ID ? { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY! } : undefined,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // The SDK's warnings into the service's log (it would write them to the console).
      logger: { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: (...msg: unknown[]) => log.warn({ s3: msg }, 'S3 client'), error: (...msg: unknown[]) => log.error({ s3: msg }, 'S3 client') },
    });
  }

  async put(key: string, file: string, size: number, contentType: string): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.prefix + key, Body: createReadStream(file), ContentLength: size, ContentType: contentType }));
  }

  async get(key: string): Promise<Readable> {
    const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }));
    return out.Body as Readable;
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }));
  }
}
