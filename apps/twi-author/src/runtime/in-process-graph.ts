/**
 * The graph export an in-process Trellis server loads ({@link openTwiServer}): the graph handed over
 * just before the server loads its entry. A module of its own, so a server started from `trellis.json`
 * (which loads `twiAuthorGraph`) is never affected.
 * @internal
 */
import { TrellisError } from "@trellis/core";
import type { TwiGraph } from "../graph.js";

let handedOver: TwiGraph | undefined;

/** Hands `graph` to the next server that loads {@link inProcessTwiGraph}. @internal */
export function handOverGraph(graph: TwiGraph | undefined): void {
  handedOver = graph;
}

/**
 * The graph export of the in-process server's entry.
 * @internal
 */
export function inProcessTwiGraph(): TwiGraph {
  if (!handedOver) {
    throw new TrellisError(
      "INVALID_CONFIG",
      "inProcessTwiGraph is loaded by openTwiServer only, after it hands a graph over.",
    );
  }
  return handedOver;
}
