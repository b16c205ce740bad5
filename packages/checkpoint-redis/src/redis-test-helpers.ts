import type { CorruptionTarget } from "@trellis/checkpoint/testing";
import type { Redis } from "ioredis";

export { deletePrefix, REDIS_URL, requireRedis, testPrefix } from "./testing.js";

/** Changes one letter of a stored item behind the saver's back, keeping its checksum. @internal */
export async function corruptRedisItem(client: Redis, threadKey: string, target: CorruptionTarget): Promise<void> {
  const { namespace: ns, checkpointId: id } = target;
  if (target.row === "shared") {
    const [ref] = await client.hkeys(`${threadKey}:v`);
    const body = ref === undefined ? null : await client.hget(`${threadKey}:v`, ref);
    if (ref === undefined || body === null) throw new Error(`no shared body to corrupt in ${threadKey}`);
    await client.hset(`${threadKey}:v`, ref, flipOneLetter(body));
    return;
  }
  const hash = `${threadKey}:${{ checkpoint: "c", blob: "b", write: "w" }[target.row]}`;
  let field = `${ns}\u0000${id}`;
  if (target.row === "blob") {
    const fields = await client.hkeys(hash);
    const match = fields.find((f) => f.startsWith(`${ns}\u0000`) && f.endsWith(`\u0000${id}`));
    if (!match) throw new Error(`no blob to corrupt for checkpoint ${id}`);
    field = match;
  }
  const value = await client.hget(hash, field);
  if (value === null) throw new Error(`no ${target.row} to corrupt for checkpoint ${id}`);
  // Keep the 16-character checksum (and a blob's header) intact: change the content after it.
  const from = target.row === "blob" ? value.indexOf("\u0000", 17) + 1 : target.row === "checkpoint" ? 16 : 0;
  await client.hset(hash, field, value.slice(0, from) + flipOneLetter(value.slice(from)));
}

function flipOneLetter(text: string): string {
  const start = Math.floor(text.length / 2);
  for (let k = 0; k < text.length; k++) {
    const i = (start + k) % text.length;
    const c = text.charCodeAt(i);
    if (c >= 97 && c <= 122) return text.slice(0, i) + String.fromCharCode(c === 122 ? 97 : c + 1) + text.slice(i + 1);
  }
  return `${text} `;
}
