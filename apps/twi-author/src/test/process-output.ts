/**
 * What this process writes to stdout and stderr while a test runs (still passed through), for tests
 * that read the JSON log lines a door writes. @internal
 */
import { vi } from "vitest";

/** One write, with the stream it went to. */
export interface Written {
  stream: "stdout" | "stderr";
  text: string;
}

/**
 * Starts recording writes to stdout and stderr; `restore()` stops.
 *
 * @example
 * const out = captureProcessOutput();
 * console.log("hi");
 * out.restore();
 * out.written; // [{ stream: "stdout", text: "hi\n" }]
 */
export function captureProcessOutput(): { written: Written[]; restore(): void } {
  const written: Written[] = [];
  const spies = (["stdout", "stderr"] as const).map((stream) => {
    const target = process[stream];
    const original = target.write.bind(target);
    return vi.spyOn(target, "write").mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
      written.push({ stream, text: String(chunk) });
      return (original as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof target.write);
  });
  return {
    written,
    restore: () => {
      for (const spy of spies) spy.mockRestore();
    },
  };
}
