import { NOT_PLAIN, type PlainWalkMemo, walkPlainData } from "@trellis/checkpoint";

/**
 * What one check has learnt (see `walkPlainData` in @trellis/checkpoint: the objects it met with their
 * answers, made on first need). `known` is what earlier checks of the same run found plain (see
 * {@link KnownPlain}): a value a node passes on from the state it was given is not walked again.
 * @internal
 */
export type PlainMemo = PlainWalkMemo;

/**
 * Objects one run has already found plain, with their answers (height and tags). Values that entered
 * the state were checked when they were written, and changing state values in place is unsupported
 * (docs/concepts.md), so a run checks each shared object once instead of once per step: a wide state
 * passed along by reference costs one walk. Weak, so it keeps nothing alive; made per run, never shared
 * between runs, because a caller may change its own input objects between two runs. @internal
 */
export type KnownPlain = WeakMap<object, number>;

/**
 * The fast yes/no form of `describeNonPlainData`: true exactly when it would return `undefined`, but
 * builds no paths, allocates nothing per value and walks each shared object once (the runtime checks
 * every write, and large states pass the same objects along by reference). Callers ask
 * `describeNonPlainData` for the details only when this says no. @internal
 */
export function isPlainData(value: unknown, memo: PlainMemo = { map: undefined }): boolean {
  if (walkPlainData(value, memo) === NOT_PLAIN) return false;
  const known = memo.known;
  const found = memo.found;
  if (known && found) {
    // Only a check that passed leaves no IN_PROGRESS marks: what it found is plain now. The objects
    // holding nested ones are enough: a later check reaches the leaves only through them.
    for (let i = 0; i < found.length; i += 2) known.set(found[i] as object, found[i + 1] as number);
    found.length = 0;
  }
  return true;
}
