import type * as LangGraph from "@langchain/langgraph";
import type * as Prebuilt from "@langchain/langgraph/prebuilt";

/** The module a program imports: `@langchain/langgraph` or `@trellis/langgraph`. */
export type LangGraphModule = typeof LangGraph;
/** The `/prebuilt` module a program imports. */
export type PrebuiltModule = typeof Prebuilt;

/** Both entry points, as a program receives them. */
export interface Modules {
  lg: LangGraphModule;
  prebuilt: PrebuiltModule;
}

/** The two implementations every program runs on. */
export async function implementations(): Promise<Array<[name: string, modules: Modules]>> {
  const [lg, prebuilt, trellis, trellisPrebuilt] = await Promise.all([
    import("@langchain/langgraph"),
    import("@langchain/langgraph/prebuilt"),
    import("../../index.js"),
    import("../../prebuilt/index.js"),
  ]);
  return [
    ["@langchain/langgraph", { lg, prebuilt }],
    [
      "@trellis/langgraph",
      { lg: trellis as unknown as LangGraphModule, prebuilt: trellisPrebuilt as unknown as PrebuiltModule },
    ],
  ];
}
