import type { BaseMessage } from "@langchain/core/messages";
import { type Messages, messagesStateReducer } from "./messages-reducer.js";

/**
 * One key of a LangGraph state: last value (no reducer) or a reducer with a default. The compat graph
 * turns each into a Trellis channel when it compiles.
 *
 * @example
 * const count = Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }); // a BaseChannel
 */
export class BaseChannel<ValueType = unknown, UpdateType = ValueType> {
  /** Type-only: the key's value. */
  declare ValueType: ValueType;
  /** Type-only: what a node writes to the key. */
  declare UpdateType: UpdateType;
  readonly lc_graph_name: string;
  constructor(
    readonly reducer: ((a: ValueType, b: UpdateType) => ValueType) | undefined,
    readonly initial: (() => ValueType) | undefined,
  ) {
    this.lc_graph_name = reducer ? "BinaryOperatorAggregate" : "LastValue";
  }
  /** True when this key holds LangChain messages merged by `messagesStateReducer`. */
  get isMessages(): boolean {
    return this.reducer === (messagesStateReducer as unknown);
  }
}

/**
 * A key whose value is the last one written.
 *
 * @example
 * const topic: LastValue<string> = Annotation<string>();
 */
export class LastValue<ValueType> extends BaseChannel<ValueType, ValueType> {}

/**
 * A key whose writes fold into its value with a reducer.
 *
 * @example
 * const log: BinaryOperatorAggregate<string[], string> = Annotation<string[], string>({ reducer: (a, b) => a.concat(b), default: () => [] });
 */
export class BinaryOperatorAggregate<ValueType, UpdateType = ValueType> extends BaseChannel<ValueType, UpdateType> {}

/**
 * A state definition: keys to channels (what `Annotation.Root` takes and `.spec` holds).
 *
 * @example
 * const spec: StateDefinition = { topic: Annotation<string>() };
 */
// biome-ignore lint/suspicious/noExplicitAny: a definition mixes channels of every value type.
export type StateDefinition = Record<string, BaseChannel<any, any> | AnnotationFunction<any>>;

/**
 * `Annotation<T>` given without calling it (`{ topic: Annotation<string> }`), which LangGraph reads as
 * `Annotation<T>()`.
 *
 * @example
 * const State = Annotation.Root({ topic: Annotation<string> });
 */
export type AnnotationFunction<V> = (spec: SingleReducer<V, V>) => BinaryOperatorAggregate<V, V>;

type ValueOf<C> = C extends BaseChannel<infer V, infer _U> ? V : C extends AnnotationFunction<infer V> ? V : never;
type UpdateOfChannel<C> =
  C extends BaseChannel<infer _V, infer U> ? U : C extends AnnotationFunction<infer V> ? V : never;

/**
 * The state a definition describes.
 *
 * @example
 * type S = StateType<{ topic: LastValue<string> }>; // { topic: string }
 */
export type StateType<SD extends StateDefinition> = {
  [K in keyof SD]: ValueOf<SD[K]>;
};

/**
 * A partial update to a definition's state.
 *
 * @example
 * type U = UpdateType<{ topic: LastValue<string> }>; // { topic?: string }
 */
export type UpdateType<SD extends StateDefinition> = {
  [K in keyof SD]?: UpdateOfChannel<SD[K]>;
};

/**
 * What `Annotation<V, U>(…)` takes: a reducer and a default (or LangGraph's older `value` name).
 *
 * @example
 * const spec: SingleReducer<number> = { reducer: (a, b) => a + b, default: () => 0 };
 */
export type SingleReducer<ValueType, UpdateType = ValueType> =
  | { reducer: (a: ValueType, b: UpdateType) => ValueType; default?: () => ValueType }
  | { value: (a: ValueType, b: UpdateType) => ValueType; default?: () => ValueType }
  | { default?: () => ValueType }
  | null;

/**
 * A state schema built with `Annotation.Root`: `.spec` holds its keys (spread it into another), and
 * `typeof X.State` / `typeof X.Update` are its state and update types.
 *
 * @example
 * const State = Annotation.Root({ ...MessagesAnnotation.spec, topic: Annotation<string>() });
 * const node = (state: typeof State.State): typeof State.Update => ({ topic: state.topic.trim() });
 */
export class AnnotationRoot<SD extends StateDefinition> {
  declare State: StateType<SD>;
  declare Update: UpdateType<SD>;
  declare Node: (state: StateType<SD>, config?: unknown) => UpdateType<SD> | Promise<UpdateType<SD>>;
  readonly lc_graph_name = "AnnotationRoot";
  constructor(readonly spec: SD) {}
}

function annotation<ValueType>(): LastValue<ValueType>;
function annotation<ValueType, UpdateType = ValueType>(
  spec: SingleReducer<ValueType, UpdateType>,
): BinaryOperatorAggregate<ValueType, UpdateType>;
function annotation<ValueType, UpdateType = ValueType>(
  spec?: SingleReducer<ValueType, UpdateType>,
): BaseChannel<ValueType, UpdateType> {
  if (spec && ("reducer" in spec || "value" in spec)) {
    const fn = "reducer" in spec ? spec.reducer : spec.value;
    return new BinaryOperatorAggregate<ValueType, UpdateType>(fn, spec.default);
  }
  return new LastValue<ValueType>(undefined, spec?.default) as unknown as BaseChannel<ValueType, UpdateType>;
}

/**
 * Declares a state key: `Annotation<T>()` keeps the last value written; `Annotation<T, U>({ reducer,
 * default })` folds writes with the reducer. `Annotation.Root({...})` makes a state schema.
 *
 * @example
 * const State = Annotation.Root({
 *   question: Annotation<string>(),
 *   notes: Annotation<string[], string>({ reducer: (a, b) => [...a, b], default: () => [] }),
 * });
 */
export const Annotation: typeof annotation & {
  Root: <SD extends StateDefinition>(spec: SD) => AnnotationRoot<SD>;
} = Object.assign(annotation, { Root: <SD extends StateDefinition>(spec: SD) => new AnnotationRoot(spec) });

/**
 * The state of a chat graph: a `messages` key merged by {@link messagesStateReducer}.
 *
 * @example
 * const graph = new StateGraph(MessagesAnnotation).addNode("agent", callModel);
 */
export const MessagesAnnotation = Annotation.Root({
  messages: Annotation<BaseMessage[], Messages>({ reducer: messagesStateReducer, default: () => [] }),
});
