/**
 * `@trellis/common/testing`: test support shared by the Trellis packages and offered to their users —
 * a loopback OTLP/HTTP receiver to assert the spans a run exports.
 */
export { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "./otlp-receiver.js";
