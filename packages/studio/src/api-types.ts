/**
 * The server's wire shapes the studio reads: declared once in `@trellis/protocol` (types only, erased
 * from the browser bundle) — the server's serialisers are declared to return the same types, so a
 * change on either side that the other does not follow fails the typecheck. The studio's own names
 * are kept as aliases.
 */
export type {
  ApiAssistant as Assistant,
  ApiCheckpoint,
  ApiGraphJson as GraphJson,
  ApiInterrupt,
  ApiRun as Run,
  ApiServerInfo as ServerInfo,
  ApiThread as Thread,
  ApiThreadState as ThreadState,
} from "@trellis/protocol";

/** One server-sent event. */
export interface SseEvent {
  id: string | undefined;
  event: string;
  data: unknown;
}
