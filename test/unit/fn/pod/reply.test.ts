import { parseDocument } from "yaml";
import {
  failedRun,
  podReadiness,
  podRunResponse,
  readCall,
  type CallReading,
} from "../../../../lib/fn/pod";
import type { Pod } from "../../../../lib/cluster/kinds";
import type { RunRequest } from "../../../../lib/fn/types";

const IMAGE = "localhost/porch-pepr/labeller:abc";
const request: RunRequest = {
  items: [
    {
      doc: parseDocument("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a # keep me\n"),
      path: "cm.yaml",
      index: 0,
    },
  ],
  functionConfig: undefined,
};
const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
const answer = (body: object) => ({
  kind: "answered" as const,
  status: 200,
  body: JSON.stringify(body),
});

/** The reply as a run's response; fails the test when the call is not an outcome. */
function respond(reading: CallReading) {
  if (reading.kind !== "outcome") throw new Error(`not an outcome: ${JSON.stringify(reading)}`);
  return podRunResponse(request, IMAGE, reading.outcome, reading.reason);
}

const OUTPUT = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: a
    labels: {team: blue}
    annotations:
      internal.config.kubernetes.io/id: "0"
      internal.config.kubernetes.io/path: cm.yaml
      internal.config.kubernetes.io/index: "0"
results:
- message: labelled 1 resources
  severity: info
`;

describe("the wrapper's answer as a RunResponse", () => {
  it("reads the output ResourceList as the exec runtime does (same conversion)", () => {
    const response = respond(readCall(answer({ exitCode: 0, stdout: b64(OUTPUT), stderr: "" })));
    expect(response.failure).toBeUndefined();
    expect(response.exitCode).toBe(0);
    expect(response.items).toHaveLength(1);
    expect(response.items[0]).toMatchObject({ path: "cm.yaml", index: 0, source: 0 });
    // Formatting of the input is restored: the comment survives the trip.
    expect(response.items[0].doc.toString()).toContain("name: a # keep me");
    expect(response.results).toEqual([{ message: "labelled 1 resources", severity: "info" }]);
  });

  it("crash: a non-zero exit is FunctionFailed, with stderr kept", () => {
    const response = respond(
      readCall(answer({ exitCode: 1, stdout: "", stderr: "labeller: crashing as asked\n" })),
    );
    expect(response.exitCode).toBe(1);
    expect(response.stderr).toBe("labeller: crashing as asked\n");
    expect(response.failure).toBe(
      `function image "${IMAGE}" (pod runtime): FunctionFailed: exited with code 1`,
    );
  });

  it("timeout: the wrapper's reason is the run's", () => {
    const response = respond(
      readCall(
        answer({
          exitCode: 137,
          stdout: "",
          stderr: "",
          failure: { reason: "Timeout", message: "the function ran longer than 2s and was killed" },
        }),
      ),
    );
    expect(response.failure).toBe(
      `function image "${IMAGE}" (pod runtime): Timeout: the function ran longer than 2s and was killed`,
    );
    // The render's reason, as for every runtime.
    expect(response.bound).toBe("FunctionTimeout");
  });

  it("garbage: stdout that is not YAML is InvalidOutput", () => {
    const response = respond(
      readCall(answer({ exitCode: 0, stdout: b64("}}} not: [yaml\n\t{{{"), stderr: "" })),
    );
    expect(response.exitCode).toBe(1);
    expect(response.failure).toMatch(
      new RegExp(
        `^function image "${IMAGE}" \\(pod runtime\\): InvalidOutput: function output is not valid YAML`,
      ),
    );
  });

  it("oversized: stdout over the wrapper's limit is OutputTooLarge; an answer over ours, AnswerTooLarge", () => {
    const response = respond(
      readCall(
        answer({
          exitCode: 137,
          stdout: b64("x".repeat(100)),
          stderr: "",
          failure: { reason: "OutputTooLarge", message: "more than 100 bytes" },
        }),
      ),
    );
    expect(response.failure).toBe(
      `function image "${IMAGE}" (pod runtime): OutputTooLarge: more than 100 bytes`,
    );
    expect(response.bound).toBe("FunctionOutputLimit");
    expect(failedRun(IMAGE, "RequestTooLarge", "too big").bound).toBe("FunctionInputLimit");
    expect(readCall({ kind: "too-large", limit: 5 })).toEqual({
      kind: "failed",
      reason: "AnswerTooLarge",
      message: "the wrapper's answer is larger than 5 bytes",
      dropPod: true,
    });
  });

  it("says when stderr was cut", () => {
    const reading = readCall(
      answer({ exitCode: 2, stdout: "", stderr: "eeee", stderrTruncated: true }),
    );
    expect(respond(reading).stderr).toBe("eeee\n… (stderr truncated)");
  });

  it("refuses answers that are not the protocol's: not JSON, wrong types, bad base64, unknown reasons", () => {
    for (const body of [
      "<html>proxy error</html>",
      JSON.stringify({ exitCode: "0", stdout: "", stderr: "" }),
      JSON.stringify({ exitCode: 0, stdout: "not base64!", stderr: "" }),
      JSON.stringify({
        exitCode: 0,
        stdout: "",
        stderr: "",
        failure: { reason: "Oops", message: "" },
      }),
    ]) {
      const reading = readCall({ kind: "answered", status: 200, body });
      expect(reading).toMatchObject({ kind: "failed", reason: "BadAnswer" });
    }
  });

  it("maps the wrapper's refusals: 401 is a lost Pod, 413, 429 and others fail the run", () => {
    expect(readCall({ kind: "answered", status: 401, body: "" }).kind).toBe("lost");
    expect(readCall({ kind: "answered", status: 413, body: "too big\n" })).toEqual({
      kind: "failed",
      reason: "RequestTooLarge",
      message: "too big",
    });
    expect(readCall({ kind: "answered", status: 429, body: "" })).toMatchObject({
      reason: "PodBusy",
    });
    expect(readCall({ kind: "answered", status: 502, body: "bad\u0007gateway" })).toEqual({
      kind: "failed",
      reason: "BadAnswer",
      message: "HTTP 502 from the wrapper: bad gateway",
    });
  });

  it("no answer is a lost Pod; no answer in time is a Timeout that drops the Pod", () => {
    expect(readCall({ kind: "unreachable", message: "connect ECONNREFUSED" })).toEqual({
      kind: "lost",
      message: "connect ECONNREFUSED",
    });
    expect(readCall({ kind: "timeout", afterMs: 12000 })).toMatchObject({
      kind: "failed",
      reason: "Timeout",
      dropPod: true,
    });
  });
});

describe("podReadiness", () => {
  const pod = (status: Pod["status"]): Pod => ({ metadata: { name: "p" }, status });

  it("is ready with the Pod's IP once the Ready condition is True", () => {
    expect(
      podReadiness(
        pod({
          phase: "Running",
          podIP: "10.244.0.5",
          conditions: [{ type: "Ready", status: "True" }],
        }),
      ),
    ).toEqual({ state: "ready", address: "10.244.0.5" });
  });

  it("is starting while scheduling or pulling, saying on what", () => {
    expect(
      podReadiness(
        pod({
          phase: "Pending",
          conditions: [
            {
              type: "PodScheduled",
              status: "False",
              reason: "Unschedulable",
              message: "0/1 nodes",
            },
          ],
        }),
      ),
    ).toEqual({
      state: "starting",
      detail: "phase Pending; PodScheduled=False Unschedulable: 0/1 nodes",
    });
  });

  it("fails at once for an image that cannot be pulled, naming the kubelet's reason", () => {
    expect(
      podReadiness(
        pod({
          phase: "Pending",
          containerStatuses: [
            {
              name: "function",
              state: { waiting: { reason: "ImagePullBackOff", message: "pull access denied" } },
            },
          ],
        }),
      ),
    ).toEqual({
      state: "failed",
      reason: "ImagePullBackOff",
      message: "container function: pull access denied",
    });
  });

  it("fails when the wrapper could not be installed or exited", () => {
    const install = podReadiness(
      pod({
        phase: "Pending",
        initContainerStatuses: [
          { name: "install-wrapper", state: { terminated: { exitCode: 1, reason: "Error" } } },
        ],
      }),
    );
    expect(install).toEqual({
      state: "failed",
      reason: "WrapperInstallFailed",
      message: "init container install-wrapper exited with code 1 (Error)",
    });
    const done = { name: "install-wrapper", state: { terminated: { exitCode: 0 } } };
    expect(podReadiness(pod({ phase: "Pending", initContainerStatuses: [done] })).state).toBe(
      "starting",
    );
    expect(
      podReadiness(
        pod({
          phase: "Failed",
          containerStatuses: [{ name: "function", state: { terminated: { exitCode: 2 } } }],
        }),
      ),
    ).toMatchObject({ state: "failed", reason: "WrapperExited" });
  });
});
