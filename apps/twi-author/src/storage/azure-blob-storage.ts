/**
 * The seed's blob store: Azure Blob Storage, with a read-only SAS link valid 24 hours for each PDF
 * (`@azure/storage-blob` 12.x). Chosen with `TWI_BLOB_STORE=azure`; the filesystem store stays the
 * embedded default.
 */
import { BlobSASPermissions, BlobServiceClient, type ContainerClient, RestError } from "@azure/storage-blob";
import type { BlobStorage, StoredBlob } from "./blob-storage.js";
import { isValidBlobName } from "./fs-blob-storage.js";

/**
 * Options of {@link AzureBlobStorage}.
 *
 * @example
 * const options: AzureBlobStorageOptions = { connectionString: process.env.TWI_AZURE_STORAGE_CONNECTION_STRING!, container: "twi-documents" };
 */
export interface AzureBlobStorageOptions {
  /** The storage account's connection string (account name and key: the key signs the SAS links). */
  connectionString: string;
  /** The container the PDFs go to; created when missing. */
  container: string;
  /** Validity of a SAS link in milliseconds. Default 24 hours. */
  ttlMs?: number;
  /** Current time in milliseconds (the links' start and expiry). */
  now?: () => number;
}

/** How long before "now" a link starts, so a clock slightly behind the service's still accepts it. */
const CLOCK_SKEW_MS = 5 * 60_000;

/**
 * Blob storage on an Azure Storage account: `upload` writes a block blob with its content type and
 * returns a **SAS URL** (read only, this blob only, valid `ttlMs`) signed with the account key, which
 * the storage service itself checks — an expired or altered link is refused by Azure (403).
 *
 * @example
 * const blobs = new AzureBlobStorage({ connectionString, container: "twi-documents" });
 * const url = await blobs.upload(pdf, "acme/c1/twi-r0.pdf"); // https://<account>.blob.core.windows.net/twi-documents/acme/c1/twi-r0.pdf?sv=…&se=…&sp=r&sig=…
 */
export class AzureBlobStorage implements BlobStorage {
  readonly #container: ContainerClient;
  readonly #ttlMs: number;
  readonly #now: () => number;
  #ready: Promise<unknown> | undefined;

  constructor(options: AzureBlobStorageOptions) {
    if (!/^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){2,62}$/.test(options.container)) {
      throw new Error(
        `TWI_AZURE_STORAGE_CONTAINER "${options.container}" is not a container name: 3–63 lowercase letters, digits and single "-".`,
      );
    }
    this.#container = BlobServiceClient.fromConnectionString(options.connectionString).getContainerClient(
      options.container,
    );
    this.#ttlMs = options.ttlMs ?? 24 * 60 * 60_000;
    this.#now = options.now ?? Date.now;
  }

  async upload(bytes: Uint8Array, blobName: string, contentType = "application/pdf"): Promise<string> {
    if (!isValidBlobName(blobName)) throw new Error(`Invalid blob name "${blobName}".`);
    this.#ready ??= this.#container.createIfNotExists().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    await this.#ready;
    await this.#container
      .getBlockBlobClient(blobName)
      .uploadData(bytes, { blobHTTPHeaders: { blobContentType: contentType } });
    return this.signedUrl(blobName);
  }

  async read(blobName: string): Promise<StoredBlob | undefined> {
    if (!isValidBlobName(blobName)) return undefined;
    try {
      const blob = this.#container.getBlockBlobClient(blobName);
      const [bytes, properties] = await Promise.all([blob.downloadToBuffer(), blob.getProperties()]);
      return { bytes: new Uint8Array(bytes), contentType: properties.contentType ?? "application/octet-stream" };
    } catch (error) {
      if (error instanceof RestError && error.statusCode === 404) return undefined;
      throw error;
    }
  }

  /** Deletes every blob under `<folder>/` (a deleted conversation's PDFs). */
  async deleteFolder(folder: string): Promise<void> {
    for await (const blob of this.#container.listBlobsFlat({ prefix: `${folder.replace(/\/+$/, "")}/` })) {
      await this.#container.deleteBlob(blob.name, { deleteSnapshots: "include" });
    }
  }

  /** A fresh SAS URL for a stored blob: read only, valid from a few minutes ago for `ttlMs`. */
  async signedUrl(blobName: string): Promise<string> {
    const now = this.#now();
    return this.#container.getBlockBlobClient(blobName).generateSasUrl({
      permissions: BlobSASPermissions.parse("r"),
      startsOn: new Date(now - CLOCK_SKEW_MS),
      expiresOn: new Date(now + this.#ttlMs),
    });
  }
}
