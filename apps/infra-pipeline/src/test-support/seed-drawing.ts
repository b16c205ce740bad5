/**
 * The seed's "Visualization" output (seed 001, `pipeline.get_graph_visualization()`), verbatim, for
 * comparing with what `infra-agent graph` prints.
 *
 * @example
 * mermaidEdges(SEED_DRAWING).length; // 16
 */
export const SEED_DRAWING = `graph TD
    orchestrator --> |change| planning
    orchestrator --> |query| END
    orchestrator --> |conversation| END
    planning --> plan_approval
    plan_approval --> |approved| iac
    plan_approval --> |rejected| rejected
    plan_approval --> |pending| END
    iac --> review
    review --> |passed| deploy_approval
    review --> |needs_revision| iac
    review --> |failed| end_failure
    deploy_approval --> |approved| deploy_validate
    deploy_approval --> |rejected| rejected
    deploy_approval --> |dry_run| end_success
    deploy_approval --> |pending| END
    deploy_validate --> end_success
`;

/**
 * The edges the pipeline's drawing has beyond the seed's: the entry point and the `add_edge(…, END)`
 * calls of the seed's `get_pipeline()`, which its drawing leaves out.
 *
 * @example
 * printed.filter((e) => !seed.includes(e)); // EDGES_BEYOND_SEED_DRAWING
 */
export const EDGES_BEYOND_SEED_DRAWING = [
  "START --> orchestrator",
  "rejected --> END",
  "end_success --> END",
  "end_failure --> END",
];
