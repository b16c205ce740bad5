/**
 * A piece of text in a message's content.
 *
 * @example
 * const part: TextPart = { type: "text", text: "What is on this label?" };
 */
export interface TextPart {
  type: "text";
  text: string;
}

/**
 * An image in a message's content: a URL (`https:`…) or base64 `data` with its `mimeType`.
 *
 * @example
 * const part: ImagePart = { type: "image", url: "https://example.com/label.png" };
 * const inline: ImagePart = { type: "image", data: "iVBORw0KGgo…", mimeType: "image/png" };
 */
export interface ImagePart {
  type: "image";
  url?: string;
  /** Base64, without a `data:` prefix. */
  data?: string;
  mimeType?: string;
}

/**
 * A file (a PDF, a text file…) in a message's content: base64 `data` or a URL, with its `mimeType`.
 *
 * @example
 * const part: FilePart = { type: "file", data: "JVBERi0x…", mimeType: "application/pdf", filename: "report.pdf" };
 */
export interface FilePart {
  type: "file";
  url?: string;
  /** Base64, without a `data:` prefix. */
  data?: string;
  mimeType: string;
  filename?: string;
}

/**
 * One part of a user message's content: text, an image or a file.
 *
 * @example
 * const content: ContentPart[] = [{ type: "text", text: "Read this" }, { type: "image", url: "https://…/a.png" }];
 */
export type ContentPart = TextPart | ImagePart | FilePart;

/**
 * A message's content: text, or parts (text, images, files) — what chat UIs send.
 *
 * @example
 * const content: MessageContent = [{ type: "text", text: "hi" }];
 */
export type MessageContent = string | ContentPart[];

/**
 * The text of a message (or of its content): the string itself, or its text parts joined — images and
 * files are left out. The one way Trellis code reads what a message says.
 *
 * @example
 * messageText({ role: "user", content: [{ type: "text", text: "Hi " }, { type: "image", url: "…" }, { type: "text", text: "there" }] }); // "Hi there"
 * messageText("plain"); // "plain"
 */
export function messageText(message: { content?: unknown } | MessageContent | undefined | null): string {
  const content =
    typeof message === "string" || Array.isArray(message)
      ? message
      : (message as { content?: unknown } | null)?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const part of content) {
    if (typeof part === "string") text += part;
    else if (part && typeof part === "object" && typeof (part as { text?: unknown }).text === "string") {
      const type = (part as { type?: unknown }).type;
      if (type === "text" || type === "text_delta" || type === undefined) text += (part as { text: string }).text;
    }
  }
  return text;
}

/** Why a content block cannot be read, for the caller's error. @internal */
export class ContentPartError extends Error {}

/**
 * Reads one content block in the shapes clients send — OpenAI (`{type:"text"}`, `{type:"image_url",
 * image_url:{url}}` with an `https:` or `data:` URL, `{type:"file", file:{file_data, filename}}`),
 * LangChain (`{type:"image"|"file", source_type:"url"|"base64", url, data, mime_type}` and v1's
 * `{type:"image", url | base64 | data, mimeType}`), Anthropic (`{type:"image", source:{type:"base64",
 * media_type, data}}`), AG-UI (`{type:"binary", mimeType, data | url, filename}`) — as a Trellis {@link ContentPart}; `undefined` for a block that carries no
 * content for a model (a `tool_use`, `reasoning` or `thinking` block). Throws {@link ContentPartError}
 * saying what was wrong.
 * @internal
 */
export function readContentPart(raw: unknown): ContentPart | undefined {
  if (typeof raw === "string") return { type: "text", text: raw };
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new ContentPartError(`a content part is ${raw === null ? "null" : typeof raw}, not an object`);
  }
  const p = raw as Record<string, unknown>;
  switch (p.type) {
    case "text":
    case "text_delta":
    case "input_text":
      if (typeof p.text !== "string") throw new ContentPartError(`a "${p.type}" part has no \`text\` string`);
      return { type: "text", text: p.text };
    case "image_url":
    case "input_image":
      return imageFrom(urlOf(p.image_url ?? p.url), p);
    case "image":
      return imageFrom(sourceOf(p), p);
    case "file":
    case "input_file":
      return fileFrom(p);
    case "binary": {
      // AG-UI's BinaryInputContent: { mimeType, data | url, filename }
      const mime = p.mimeType ?? p.mime_type;
      return typeof mime === "string" && mime.startsWith("image/") ? imageFrom(sourceOf(p), p) : fileFrom(p);
    }
    case "tool_use":
    case "tool_call":
    case "reasoning":
    case "thinking":
    case "redacted_thinking":
      return undefined;
    default:
      throw new ContentPartError(
        `its content has a ${typeof p.type === "string" ? `"${p.type}"` : "typeless"} part; text, image (image_url) and file parts are supported`,
      );
  }
}

/** `image_url` as OpenAI sends it: a string, or `{ url, detail }`. */
function urlOf(value: unknown): Source {
  if (typeof value === "string") return { url: value };
  if (value && typeof value === "object" && typeof (value as { url?: unknown }).url === "string") {
    return { url: (value as { url: string }).url };
  }
  return {};
}

interface Source {
  url?: string;
  data?: string;
  mimeType?: string;
}

/** Where an `image` or `file` block's bytes are, in LangChain's, LangChain v1's and Anthropic's shapes. */
function sourceOf(p: Record<string, unknown>): Source {
  const out: Source = {};
  const mime = p.mime_type ?? p.mimeType ?? p.media_type;
  if (typeof mime === "string") out.mimeType = mime;
  const source = p.source as Record<string, unknown> | undefined;
  if (source && typeof source === "object") {
    // Anthropic: { source: { type: "base64", media_type, data } | { type: "url", url } }
    if (typeof source.data === "string") out.data = source.data;
    if (typeof source.url === "string") out.url = source.url;
    if (typeof source.media_type === "string") out.mimeType = source.media_type;
    return out;
  }
  if (p.source_type === "url") {
    const url = p.url ?? p.data;
    if (typeof url === "string") out.url = url;
    return out;
  }
  const data = p.data ?? p.base64;
  if (typeof data === "string") out.data = data;
  if (typeof p.url === "string") out.url = p.url;
  return out;
}

/** A `data:` URL split into its media type and base64 data; any other URL must be http(s). */
function fromDataUrl(source: Source): Source {
  if (source.url !== undefined && !source.url.startsWith("data:")) {
    if (!URL.canParse(source.url) || !/^https?:$/.test(new URL(source.url).protocol)) {
      throw new ContentPartError(
        `a content part's URL must be an http(s) or a data: URL, not "${source.url.slice(0, 60)}"`,
      );
    }
  }
  if (!source.url?.startsWith("data:")) return source;
  const match = /^data:([^;,]+)?(;base64)?,(.*)$/s.exec(source.url);
  if (!match?.[2]) throw new ContentPartError("a data: URL in a content part must be base64 (data:<type>;base64,…)");
  return { data: match[3] as string, ...(match[1] ? { mimeType: match[1] } : {}) };
}

function imageFrom(source: Source, p: Record<string, unknown>): ImagePart {
  const s = fromDataUrl(source);
  if (s.url === undefined && s.data === undefined) {
    throw new ContentPartError(`an "${String(p.type)}" part has neither a URL nor base64 data`);
  }
  const part: ImagePart = { type: "image" };
  if (s.url !== undefined) part.url = s.url;
  if (s.data !== undefined) part.data = s.data;
  const mimeType = s.mimeType ?? (typeof p.mime_type === "string" ? p.mime_type : undefined);
  if (mimeType !== undefined) part.mimeType = mimeType;
  else if (part.data !== undefined) throw new ContentPartError("an image given as base64 data needs its mime type");
  return part;
}

function fileFrom(p: Record<string, unknown>): FilePart {
  // OpenAI: { type: "file", file: { file_data: "data:…;base64,…", filename } | { file_id } }
  const openai = p.file as Record<string, unknown> | undefined;
  let source: Source;
  let filename: unknown;
  if (openai && typeof openai === "object") {
    if (typeof openai.file_id === "string" && openai.file_data === undefined) {
      throw new ContentPartError("a file part that names an uploaded file_id cannot be sent; send its file_data");
    }
    source = typeof openai.file_data === "string" ? { url: openai.file_data } : {};
    filename = openai.filename;
  } else {
    source = sourceOf(p);
    const meta = p.metadata as Record<string, unknown> | undefined;
    filename = p.filename ?? p.name ?? meta?.filename ?? meta?.name;
  }
  const s = fromDataUrl(source);
  if (s.url === undefined && s.data === undefined) {
    throw new ContentPartError("a file part has neither a URL nor base64 data");
  }
  const mimeType = s.mimeType ?? (typeof p.mime_type === "string" ? p.mime_type : undefined);
  if (mimeType === undefined) throw new ContentPartError("a file part needs its mime type (mime_type)");
  const part: FilePart = { type: "file", mimeType };
  if (s.url !== undefined) part.url = s.url;
  if (s.data !== undefined) part.data = s.data;
  if (typeof filename === "string") part.filename = filename;
  return part;
}
