import { expect } from "vitest";
import { TrellisError, type TrellisErrorCode } from "../index.js";

type ErrorClass = abstract new (...args: never[]) => Error;

/** Runs `fn`, expects it to throw (or reject) an error of `type` with `code`, returns the error. */
export async function caught<E extends Error>(
  fn: () => unknown,
  type: ErrorClass,
  code: TrellisErrorCode,
): Promise<E & TrellisError> {
  let error: unknown;
  try {
    await fn();
  } catch (e) {
    error = e;
  }
  expect(error, "expected an error").toBeInstanceOf(type);
  expect(error).toBeInstanceOf(TrellisError);
  expect((error as TrellisError).code).toBe(code);
  return error as E & TrellisError;
}

/** A node that writes nothing. */
export const noop = () => ({});
