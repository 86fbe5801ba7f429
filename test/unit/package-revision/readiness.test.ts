import type { Condition } from "../../../lib/kubernetes/conditions";
import { blockedReady, readyInGit } from "../../../lib/package-revision";

const rendered = (status: Condition["status"], reason: string): Condition => ({
  type: "Rendered",
  status,
  reason,
  message: `${reason} message`,
  lastTransitionTime: "2026-01-01T00:00:00Z",
});

describe("Ready while the files cannot be committed", () => {
  it.each(["UnsafeFileNames", "InvalidContent"])(
    "is False with the render's reason and message for %s (Draft and Proposed)",
    reason => {
      for (const lifecycle of ["Draft", "Proposed"]) {
        expect(blockedReady(lifecycle, rendered("False", reason))).toEqual({
          type: "Ready",
          status: "False",
          reason,
          message: `${reason} message`,
        });
      }
    },
  );

  it("is not blocked by a failed function (its last good content is in git), nor once rendered", () => {
    for (const reason of ["RenderFailed", "ExecDenied", "InvalidKptfile", "Failed"])
      expect(blockedReady("Draft", rendered("False", reason))).toBeUndefined();
    expect(blockedReady("Draft", rendered("True", "Rendered"))).toBeUndefined();
    expect(blockedReady("Draft", undefined)).toBeUndefined();
  });

  it("does not hold a Published revision (render no longer runs for it)", () => {
    for (const lifecycle of ["Published", "DeletionProposed"])
      expect(blockedReady(lifecycle, rendered("False", "UnsafeFileNames"))).toBeUndefined();
  });
});

describe("readyInGit", () => {
  it("is True naming the lifecycle unless the files cannot be committed", () => {
    expect(readyInGit("Draft", rendered("False", "RenderFailed"))).toEqual({
      type: "Ready",
      status: "True",
      reason: "Ready",
      message: "Draft in git",
    });
    expect(readyInGit("Proposed", rendered("False", "UnsafeFileNames"))).toMatchObject({
      status: "False",
      reason: "UnsafeFileNames",
    });
  });
});
