import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import type { BlobStorage, StoredBlob } from "./blob-storage.js";
import type { UrlSigner } from "./url-signer.js";

/**
 * Options of {@link FsBlobStorage}.
 *
 * @example
 * const options: FsBlobStorageOptions = { dir: ".twi-author/blobs", baseUrl: "http://127.0.0.1:8123/apps/twi-author", signer };
 */
export interface FsBlobStorageOptions {
  /** Directory the blobs are written under. */
  dir: string;
  /** Public address of the app's routes; URLs are `<baseUrl>/blobs/<name>?expires=…&sig=…`. */
  baseUrl: string;
  signer: UrlSigner;
}

/**
 * Checks a blob name: path segments of letters, digits, `.`, `_` and `-`, no `..`.
 *
 * @example
 * isValidBlobName("acme/c1.pdf"); // true
 * isValidBlobName("../etc/passwd"); // false
 */
export function isValidBlobName(name: string): boolean {
  return (
    name.length > 0 &&
    name.length <= 512 &&
    !name.endsWith(".meta.json") &&
    name.split("/").every((part) => /^[A-Za-z0-9_.-]+$/.test(part) && part !== "." && part !== "..")
  );
}

/**
 * The default blob storage: files under a directory, served by the app's `/blobs/*` route through a
 * URL signed with an HMAC and valid 24 hours.
 *
 * @example
 * const storage = new FsBlobStorage({ dir: "./data/blobs", baseUrl: "http://127.0.0.1:8123/apps/twi-author", signer });
 * const url = await storage.upload(bytes, "acme/c1.pdf"); // …/blobs/acme/c1.pdf?expires=…&sig=…
 */
export class FsBlobStorage implements BlobStorage {
  readonly #dir: string;
  readonly #baseUrl: string;
  readonly #signer: UrlSigner;

  constructor(options: FsBlobStorageOptions) {
    this.#dir = resolve(options.dir);
    this.#baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#signer = options.signer;
  }

  /** The signer that guards the URLs (the route verifies with it). */
  get signer(): UrlSigner {
    return this.#signer;
  }

  async upload(bytes: Uint8Array, blobName: string, contentType = "application/pdf"): Promise<string> {
    const file = this.#path(blobName);
    await mkdir(dirname(file), { recursive: true });
    // Write to a temporary name and rename: a reader never sees half a file.
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, bytes);
    await rename(tmp, file);
    await writeFile(`${file}.meta.json`, JSON.stringify({ contentType }));
    return this.signedUrl(blobName);
  }

  async deleteFolder(folder: string): Promise<void> {
    if (!isValidBlobName(folder)) return;
    await rm(this.#path(folder), { recursive: true, force: true });
  }

  async read(blobName: string): Promise<StoredBlob | undefined> {
    if (!isValidBlobName(blobName)) return undefined;
    const file = this.#path(blobName);
    try {
      const bytes = new Uint8Array(await readFile(file));
      const meta = JSON.parse(await readFile(`${file}.meta.json`, "utf8").catch(() => "{}")) as {
        contentType?: string;
      };
      return { bytes, contentType: meta.contentType ?? "application/octet-stream" };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  /** A fresh signed URL for a stored blob. */
  signedUrl(blobName: string): string {
    const { expires, sig } = this.#signer.sign(blobName);
    const path = blobName.split("/").map(encodeURIComponent).join("/");
    return `${this.#baseUrl}/blobs/${path}?expires=${expires}&sig=${sig}`;
  }

  #path(blobName: string): string {
    if (!isValidBlobName(blobName)) throw new Error(`Invalid blob name "${blobName}".`);
    const file = join(this.#dir, ...blobName.split("/"));
    if (!file.startsWith(this.#dir + sep)) throw new Error(`Blob name "${blobName}" leaves the storage directory.`);
    return file;
  }
}
