/**
 * A stored blob, as `read` returns it.
 *
 * @example
 * const blob = await storage.read("acme/c1.pdf"); blob?.contentType; // "application/pdf"
 */
export interface StoredBlob {
  bytes: Uint8Array;
  contentType: string;
}

/**
 * Where the PDFs go (the seed: Azure Blob Storage with a 24-hour SAS URL). `upload` stores the bytes
 * and returns a URL that grants read access for a limited time.
 *
 * @example
 * const url = await storage.upload(pdfBytes, "acme/c1.pdf");
 */
export interface BlobStorage {
  upload(bytes: Uint8Array, blobName: string, contentType?: string): Promise<string>;
  read(blobName: string): Promise<StoredBlob | undefined>;
  /**
   * Deletes every blob whose name starts with `<folder>/` (nothing when there is none): a deleted
   * conversation's PDFs go with it.
   */
  deleteFolder(folder: string): Promise<void>;
}
