/**
 * Run as a separate process by the restart test: opens the app in the directory given on the command
 * line, starts a conversation, prints where it paused as JSON, and exits — a process that ends while
 * the conversation waits for its reviewer.
 * @internal
 */
import { pathToFileURL } from "node:url";
import { conversation, createTestApp } from "./test-app.js";

/** Starts `conversationId` in the app at `dir` and returns the view. @internal */
export async function startPausedConversation(dir: string, conversationId: string, message: string): Promise<string> {
  const app = createTestApp({ dir });
  try {
    const view = await app.assistant.start(conversation(conversationId, message));
    return JSON.stringify({ kind: view.kind, pid: process.pid });
  } finally {
    await app.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [dir, id, message] = process.argv.slice(2);
  if (!dir || !id || !message) throw new Error("usage: paused-conversation-process <dir> <conversation id> <message>");
  process.stdout.write(`${await startPausedConversation(dir, id, message)}\n`);
}
