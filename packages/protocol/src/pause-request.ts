/**
 * How a graph asks a person something: the value it passes to `interrupt()` may declare a `kind`, and
 * every door (the CLI, the studio, AG-UI) renders that kind the same way (see `readPause` in
 * `pause-reading.ts`). An app that needs its own form declares it here too — a `form` with a JSON
 * Schema — with its graph; no door knows an app's state keys.
 */

/**
 * The kinds a pause may declare.
 *
 * @example
 * function label(kind: PauseKind): string {
 *   return { approve: "Yes / no", choose: "Pick one", text: "Type an answer", form: "Fill in the form" }[kind];
 * }
 */
export type PauseKind = "approve" | "choose" | "text" | "form";

/**
 * Yes or no; answered with `true` or `false`.
 *
 * @example
 * const pause: ApprovePause = askApproval("Deploy to prd?", plan);
 * const approved = interrupt<boolean>(pause);
 */
export interface ApprovePause {
  kind: "approve";
  question: string;
  /** What is being approved, shown with the question (a draft, a plan). */
  details?: unknown;
}

/**
 * One option of a {@link ChoosePause}; the answer is its `key`.
 *
 * @example
 * const options: PauseOption[] = [{ key: "a", label: "Rewrite it" }, { key: "b", label: "Keep it" }];
 * const choice = interrupt<string>(askChoice("What now?", options)); // "a" or "b"
 */
export interface PauseOption {
  key: string;
  label: string;
}

/**
 * One of several options; answered with the chosen option's `key`.
 *
 * @example
 * const pause: ChoosePause = askChoice("Which site?", [
 *   { key: "north", label: "North plant" },
 *   { key: "south", label: "South plant" },
 * ]);
 * const site = interrupt<string>(pause);
 */
export interface ChoosePause {
  kind: "choose";
  question: string;
  options: PauseOption[];
}

/**
 * Free text; answered with the text.
 *
 * @example
 * const pause: TextPause = askText("What should the summary stress?");
 * const focus = interrupt<string>(pause);
 */
export interface TextPause {
  kind: "text";
  question: string;
}

/**
 * A JSON Schema for a {@link FormPause}: an object whose properties are the fields. Doors draw string,
 * number, integer, boolean and enum properties as fields; anything else is typed as JSON.
 *
 * @example
 * const schema: PauseFormSchema = {
 *   type: "object",
 *   properties: { site: { type: "string", title: "Site" }, workers: { type: "integer", default: 1 } },
 *   required: ["site"],
 * };
 * const answer = interrupt<{ site: string; workers: number }>(askForm("Where and how many?", schema));
 */
export interface PauseFormSchema {
  type: "object";
  properties: Record<string, PauseFieldSchema>;
  required?: string[];
}

/**
 * One field of a {@link PauseFormSchema}.
 *
 * @example
 * const severity: PauseFieldSchema = { type: "string", title: "Severity", enum: ["low", "high"], default: "low" };
 */
export interface PauseFieldSchema {
  type?: "string" | "number" | "integer" | "boolean" | "object" | "array";
  title?: string;
  description?: string;
  enum?: Array<string | number>;
  default?: unknown;
}

/**
 * Several fields at once; answered with an object of the schema's properties.
 *
 * @example
 * const pause: FormPause = askForm("Shipping details", { type: "object", properties: { address: { type: "string" } } });
 * const { address } = interrupt<{ address: string }>(pause);
 */
export interface FormPause {
  kind: "form";
  question: string;
  schema: PauseFormSchema;
}

/**
 * What an interrupt value may declare.
 *
 * @example
 * const request: PauseRequest = needsDetails ? askText("What is missing?") : askApproval("Send it?");
 * const answer = interrupt(request);
 */
export type PauseRequest = ApprovePause | ChoosePause | TextPause | FormPause;

/**
 * An approval pause: `interrupt(askApproval("Deploy to prd?", plan))` resumes with `true` or `false`.
 *
 * @example
 * const approved = interrupt<boolean>(askApproval("Publish this draft?", { draft }));
 */
export function askApproval(question: string, details?: unknown): ApprovePause {
  return details === undefined ? { kind: "approve", question } : { kind: "approve", question, details };
}

/**
 * A choice: resumes with the chosen option's key.
 *
 * @example
 * const key = interrupt<string>(askChoice("Which volume?", [{ key: "A", label: "a disk" }, { key: "B", label: "storage" }]));
 */
export function askChoice(question: string, options: readonly PauseOption[]): ChoosePause {
  return { kind: "choose", question, options: options.map((o) => ({ key: o.key, label: o.label })) };
}

/**
 * A free-text question: resumes with the text.
 *
 * @example
 * const address = interrupt<string>(askText("What is the site's address?"));
 */
export function askText(question: string): TextPause {
  return { kind: "text", question };
}

/**
 * A form described by a JSON Schema: resumes with an object of its properties.
 *
 * @example
 * const answer = interrupt<{ site: string; visits: number }>(
 *   askForm("About the site", { type: "object", properties: { site: { type: "string" }, visits: { type: "integer" } }, required: ["site"] }),
 * );
 */
export function askForm(question: string, schema: PauseFormSchema): FormPause {
  return { kind: "form", question, schema };
}
