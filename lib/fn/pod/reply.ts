// The wrapper's answer (hack/functions/wrapper: POST /run) as a RunResponse, and every way a
// pod run can fail as one message naming the image, the runtime and the reason.
import type { FunctionBound } from "../bounds";
import { isCapacityReason } from "../capacity-retry";
import type { ExecOutcome } from "../exec";
import { responseFromOutput } from "../run-output";
import type { RunRequest, RunResponse } from "../types";

/**
 * Why a pod run failed. The wrapper's own: Timeout, OutputTooLarge, StartFailed, Killed. The
 * function's: FunctionFailed (non-zero exit), InvalidOutput (stdout is no ResourceList). The
 * Pod's and the pool's: the rest.
 */
export type PodFailureReason =
  | "Timeout"
  | "OutputTooLarge"
  | "StartFailed"
  | "Killed"
  | "FunctionFailed"
  | "InvalidOutput"
  | "InvalidFunction"
  | "RequestTooLarge"
  | "AnswerTooLarge"
  | "BadAnswer"
  | "PodBusy"
  | "PodUnreachable"
  | "PodCreateFailed"
  | "PodStartFailed"
  | "PodStartTimeout"
  | "QueueFull"
  | "TooManyPods"
  | "Internal";

/** The one shape of a pod run's failure message. */
export function podFailure(image: string, reason: PodFailureReason, detail: string): string {
  return `function image ${JSON.stringify(image)} (pod runtime): ${reason}: ${detail}`;
}

/** The pod failures that are a function's bound, as every runtime names them. */
const BOUNDS: Partial<Record<PodFailureReason, FunctionBound>> = {
  Timeout: "FunctionTimeout",
  OutputTooLarge: "FunctionOutputLimit",
  AnswerTooLarge: "FunctionOutputLimit",
  RequestTooLarge: "FunctionInputLimit",
};

export function failedRun(image: string, reason: PodFailureReason, detail: string): RunResponse {
  const failure = podFailure(image, reason, detail);
  const bound = BOUNDS[reason];
  const capacity = isCapacityReason(reason) ? reason : undefined;
  return {
    items: [],
    results: [],
    exitCode: 1,
    failure,
    ...(bound && { bound }),
    ...(capacity && { capacity }),
  };
}

/** What the operator's HTTP call to the wrapper came to (capabilities/shared/function-pods). */
export type WrapperCall =
  | { kind: "answered"; status: number; body: string }
  /** No answer: refused, reset, unreachable. */
  | { kind: "unreachable"; message: string }
  | { kind: "timeout"; afterMs: number }
  | { kind: "too-large"; limit: number };

export type CallReading =
  | { kind: "outcome"; outcome: ExecOutcome; reason?: PodFailureReason }
  /** The Pod did not serve the run: replace it (once) and try again. */
  | { kind: "lost"; message: string }
  /** Fail the run; `dropPod` when the Pod should not get another run. */
  | { kind: "failed"; reason: PodFailureReason; message: string; dropPod?: boolean };

const WRAPPER_REASONS: ReadonlySet<string> = new Set([
  "Timeout",
  "OutputTooLarge",
  "StartFailed",
  "Killed",
]);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

// Control characters (and DEL) in what a wrapper or a function said: never into a message.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]+/g;

const printable = (text: string, max = 200) =>
  (text.length > max ? `${text.slice(0, max)}…` : text).replace(CONTROL, " ").trim();

function answer(body: string): CallReading {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return {
      kind: "failed",
      reason: "BadAnswer",
      message: `the wrapper's answer is not JSON: ${printable(body)}`,
    };
  }
  const reply = (typeof parsed === "object" && parsed !== null ? parsed : {}) as Record<
    string,
    unknown
  >;
  const { exitCode, stdout, stderr, failure } = reply;
  const given = failure as { reason?: unknown; message?: unknown } | null | undefined;
  const failureOk =
    given === undefined ||
    (typeof given === "object" &&
      given !== null &&
      typeof given.reason === "string" &&
      WRAPPER_REASONS.has(given.reason) &&
      typeof given.message === "string");
  if (
    typeof exitCode !== "number" ||
    !Number.isInteger(exitCode) ||
    typeof stdout !== "string" ||
    !BASE64.test(stdout) ||
    typeof stderr !== "string" ||
    !failureOk
  ) {
    return {
      kind: "failed",
      reason: "BadAnswer",
      message: `the wrapper's answer is malformed: ${printable(body)}`,
    };
  }
  const stopped = given as { reason: PodFailureReason; message: string } | undefined;
  return {
    kind: "outcome",
    outcome: {
      stdout: Buffer.from(stdout, "base64").toString("utf8"),
      stderr: reply.stderrTruncated === true ? `${stderr}\n… (stderr truncated)` : stderr,
      exitCode,
      failure: stopped && printable(stopped.message, 1000),
    },
    reason: stopped?.reason,
  };
}

/** How to go on after a call to the wrapper. */
export function readCall(call: WrapperCall): CallReading {
  switch (call.kind) {
    case "answered":
      switch (call.status) {
        case 200:
          return answer(call.body);
        case 401:
          return {
            kind: "lost",
            message: "the Pod refused the run's token (not the Pod it was made as)",
          };
        case 413:
          return { kind: "failed", reason: "RequestTooLarge", message: printable(call.body) };
        case 429:
          return { kind: "failed", reason: "PodBusy", message: printable(call.body) };
        default:
          return {
            kind: "failed",
            reason: "BadAnswer",
            message: `HTTP ${call.status} from the wrapper: ${printable(call.body)}`,
          };
      }
    case "unreachable":
      return { kind: "lost", message: call.message };
    case "timeout":
      return {
        kind: "failed",
        reason: "Timeout",
        message: `no answer from the Pod within ${call.afterMs} ms (the function's limit and a margin); the Pod is replaced`,
        dropPod: true,
      };
    case "too-large":
      return {
        kind: "failed",
        reason: "AnswerTooLarge",
        message: `the wrapper's answer is larger than ${call.limit} bytes`,
        dropPod: true,
      };
  }
}

/**
 * The function's outcome as the exec runtime reads a process's (the same conversion), with a
 * failure message that names the image, the runtime and the reason.
 */
export function podRunResponse(
  request: RunRequest,
  image: string,
  outcome: ExecOutcome,
  reason?: PodFailureReason,
): RunResponse {
  const response = responseFromOutput(request, outcome);
  if (response.failure) {
    const why = reason ?? (outcome.exitCode !== 0 ? "FunctionFailed" : "InvalidOutput");
    response.failure = podFailure(image, why, response.failure);
    const bound = BOUNDS[why];
    if (bound) response.bound = bound;
  }
  return response;
}
