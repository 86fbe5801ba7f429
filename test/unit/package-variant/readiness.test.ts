import type { PackageRevision } from "../../../crd-types";
import {
  planPackageVariant,
  renderVerdict,
  statusWaits,
  stepVerdict,
  variantConditions,
} from "../../../lib/package-variant";
import { sourcePendingMessage } from "../../../lib/package-variant/state";
import { revision, upstreamRevision, variant } from "./fixtures";

const upstream = upstreamRevision(2);
const stepsOf = (downstreams: PackageRevision[]) =>
  planPackageVariant({ pv: variant(), upstream, revisions: [upstream, ...downstreams] }).steps;
const readyOf = (outcome: Parameters<typeof variantConditions>[0]) =>
  variantConditions(outcome).find(c => c.type === "Ready");

const failedSource = (reason = "Failed", message = "clone: boom"): PackageRevision => {
  const draft = revision({ ws: "packagevariant-1", source: true });
  draft.status = {
    conditions: [
      {
        type: "Ready",
        status: "False",
        reason,
        message,
        lastTransitionTime: "",
      },
    ],
  };
  return draft;
};

describe("Ready means an up-to-date draft exists", () => {
  it("is False with the message when the draft's source failed", () => {
    const [step] = stepsOf([failedSource()]);
    const verdict = stepVerdict(step);
    expect(verdict.failure).toMatch(/from its source: clone: boom$/);
    const ready = readyOf({ errors: [verdict.failure ?? ""], pending: [], targets: [] });
    expect(ready).toMatchObject({ status: "False", reason: "Error" });
    expect(ready?.message).toMatch(/clone: boom$/);
  });

  it("is False (Pending) while the draft's source has not run, and after creating a draft", () => {
    const [wait] = stepsOf([revision({ ws: "packagevariant-1", source: true })]);
    expect(stepVerdict(wait)).toEqual({
      pending:
        'waiting for PackageRevision "edge01.nginx.packagevariant-1" to be created from its source',
    });
    const [clone] = stepsOf([]);
    // The same message: the status written after the creation is not written again.
    expect(stepVerdict(clone)).toEqual(stepVerdict(wait));
    const ready = readyOf({ errors: [], pending: ["waiting"], targets: [] });
    expect(ready).toMatchObject({ status: "False", reason: "Pending", message: "waiting" });
  });

  it("is False (UpstreamLockMissing) for a downstream without an upstream lock, its mutations still checked", () => {
    const unlocked = revision({ ws: "packagevariant-1", lifecycle: "Published", revision: 1 });
    const [step] = stepsOf([unlocked]);
    // What is known is kept: the downstream stays the target and its mutations are checked.
    expect(step).toMatchObject({ kind: "checkMutations", target: "edge01.nginx.packagevariant-1" });
    const verdict = stepVerdict(step);
    const message =
      'downstream "edge01.nginx.packagevariant-1" has no status.upstreamLock.git.ref, so its ' +
      "upstream revision is unknown: it is not upgraded (its Kptfile needs upstream and upstreamLock)";
    expect(verdict).toEqual({ upstreamUnknown: message });
    const outcome = { errors: [], pending: ["p"], upstreamUnknown: [message], targets: [] };
    expect(variantConditions(outcome)).toEqual([
      expect.objectContaining({ type: "Stalled", status: "False", reason: "Valid" }),
      { type: "Ready", status: "False", reason: "UpstreamLockMissing", message },
    ]);
    // A locked downstream is not reported.
    const locked = revision({
      ws: "packagevariant-1",
      lifecycle: "Published",
      revision: 1,
      lockRef: "nginx/v2",
    });
    expect(stepVerdict(stepsOf([locked])[0])).toEqual({});
  });

  it("does not change while its downstream is being published (the move is the revision's)", () => {
    const proposal = revision({
      ws: "packagevariant-1",
      lifecycle: "Published",
      lockRef: "nginx/v2",
    });
    const [step] = stepsOf([proposal]);
    expect(step).toMatchObject({ kind: "wait", publishing: true });
    const message = 'waiting for PackageRevision "edge01.nginx.packagevariant-1" to be published';
    expect(stepVerdict(step)).toEqual({ publishing: message });
    // No news: the status is left as it was, whatever it said.
    expect(
      statusWaits(undefined, 1, { errors: [], pending: [], publishing: [message], targets: [] }),
    ).toBe(true);
    // A git server down for the publish is still said.
    proposal.status = {
      conditions: [
        {
          type: "Ready",
          status: "False",
          reason: "Unavailable",
          message: "down",
          lastTransitionTime: "",
        },
      ],
    };
    expect(stepVerdict(stepsOf([proposal])[0]).unavailable).toMatch(/to be published: down$/);
  });

  it("is False (Error) when its downstream's publish was refused at this generation", () => {
    const refused = revision({
      ws: "packagevariant-1",
      lifecycle: "Published",
      lockRef: "nginx/v2",
    });
    refused.metadata = { ...refused.metadata, generation: 3 };
    const ready = (observedGeneration: number) => ({
      type: "Ready",
      status: "False" as const,
      reason: "Failed",
      message: "readiness gates not met: config.injection.ConfigMap.settings",
      observedGeneration,
      lastTransitionTime: "",
    });
    refused.status = { conditions: [ready(3)] };
    const verdict = stepVerdict(stepsOf([refused])[0]);
    expect(verdict.failure).toBe(
      'waiting for PackageRevision "edge01.nginx.packagevariant-1" to be published: readiness gates not met: config.injection.ConfigMap.settings',
    );
    // Said of an earlier generation: this one's publish is still to be tried.
    refused.status = { conditions: [ready(2)] };
    expect(stepVerdict(stepsOf([refused])[0])).toEqual({
      publishing: 'waiting for PackageRevision "edge01.nginx.packagevariant-1" to be published',
    });
  });

  it("is True only with no failure and nothing pending; an error outranks pending", () => {
    expect(readyOf({ errors: [], pending: [], targets: [] })).toMatchObject({
      status: "True",
      reason: "NoErrors",
    });
    expect(readyOf({ errors: ["e"], pending: ["p"], targets: [] })).toMatchObject({
      status: "False",
      reason: "Error",
      message: "e",
    });
    expect(readyOf({ stalled: "bad", errors: [], pending: [], targets: [] })).toMatchObject({
      status: "False",
      message: "invalid packagevariant object",
    });
  });

  it("is False (Unavailable) while the draft's git server is down: retried, not failed", () => {
    const [step] = stepsOf([failedSource("Unavailable", "git server is unavailable")]);
    const verdict = stepVerdict(step);
    expect(verdict.failure).toBeUndefined();
    expect(verdict.unavailable).toMatch(/from its source: git server is unavailable$/);
    const ready = readyOf({
      errors: [],
      pending: ["p"],
      unavailable: [verdict.unavailable ?? ""],
      targets: [],
    });
    expect(ready).toMatchObject({ status: "False", reason: "Unavailable" });
    expect(ready?.message).toMatch(/git server is unavailable$/);
  });
});

describe("Ready follows the downstream draft's render", () => {
  const rendered = (status: "True" | "False", observed = "7", reason = "Rendered") => {
    const draft = revision({ ws: "packagevariant-1", source: true });
    draft.status = {
      observedPrrResourceVersion: observed,
      conditions: [
        { type: "Rendered", status, reason, message: "image x: no entry", lastTransitionTime: "" },
      ],
    };
    return draft;
  };

  it("is ready when the draft rendered its current files", () => {
    expect(renderVerdict(rendered("True"), "7")).toEqual({});
  });

  it("waits while the files it holds now have not been rendered", () => {
    const name = rendered("True").metadata?.name;
    const waiting = `waiting for PackageRevision "${name}" to render its current resources`;
    expect(renderVerdict(rendered("True"), "8")).toEqual({ renderPending: waiting });
    expect(renderVerdict(rendered("True"), undefined)).toEqual({ renderPending: waiting });
    expect(renderVerdict(revision({ ws: "packagevariant-1" }), "7")).toEqual({
      renderPending: waiting,
    });
  });

  it("is False, reason RenderFailed, naming the draft and its render failure", () => {
    const draft = rendered("False", "7", "FunctionUnavailable");
    const verdict = renderVerdict(draft, "7");
    expect(verdict.renderFailed).toBe(
      `PackageRevision "${draft.metadata?.name}" did not render: FunctionUnavailable: image x: no entry`,
    );
    const ready = readyOf({
      errors: [],
      pending: [],
      targets: [],
      renderFailed: [verdict.renderFailed ?? ""],
    });
    expect(ready).toMatchObject({ status: "False", reason: "RenderFailed" });
  });

  it("does not ask a published downstream to render again", () => {
    const published = rendered("False", "1");
    published.spec = { ...published.spec, lifecycle: "Published" };
    expect(renderVerdict(published, "9")).toEqual({});
  });
});

describe("statusWaits: a new or changed variant's news is its draft made", () => {
  const target = "deployments.app.packagevariant-1";
  const awaiting = { errors: [], pending: [sourcePendingMessage(target)], targets: [target] };

  it("leaves unwritten a first status that only says the draft waits for its source", () => {
    expect(statusWaits(undefined, 1, awaiting)).toBe(true);
    expect(statusWaits({}, 1, awaiting)).toBe(true);
  });

  it("leaves an older generation's status standing while the new draft waits (an upgrade)", () => {
    const ready = { type: "Ready", status: "True", observedGeneration: 1 };
    expect(statusWaits({ observedGeneration: 1, conditions: [ready] }, 2, awaiting)).toBe(true);
  });

  it("writes a status of this generation, or one without observedGeneration, whatever it said", () => {
    expect(statusWaits({ observedGeneration: 1 }, 1, awaiting)).toBe(false);
    expect(statusWaits({ observedGeneration: 2 }, 2, awaiting)).toBe(false);
    expect(statusWaits({ conditions: [{ type: "Ready" }] }, 1, awaiting)).toBe(false);
  });

  it("writes a publish in flight beside any other news", () => {
    const publishing = ["waiting for x to be published"];
    expect(
      statusWaits({ observedGeneration: 2 }, 2, { ...awaiting, pending: [], publishing }),
    ).toBe(true);
    expect(statusWaits(undefined, 2, { ...awaiting, pending: [], publishing, errors: ["e"] })).toBe(
      false,
    );
    const rendering = `waiting for PackageRevision "${target}" to render its current resources`;
    expect(statusWaits(undefined, 2, { ...awaiting, pending: [rendering], publishing })).toBe(
      false,
    );
  });

  it("writes any other news: ready, a failure, a render pending, stalled", () => {
    const older = { observedGeneration: 1 };
    for (const status of [undefined, older]) {
      expect(statusWaits(status, 2, { ...awaiting, pending: [] })).toBe(false);
      expect(statusWaits(status, 2, { ...awaiting, errors: ["boom"] })).toBe(false);
      expect(statusWaits(status, 2, { ...awaiting, stalled: "invalid" })).toBe(false);
      expect(statusWaits(status, 2, { ...awaiting, unavailable: ["down"] })).toBe(false);
      expect(statusWaits(status, 2, { ...awaiting, renderFailed: ["x"] })).toBe(false);
      expect(statusWaits(status, 2, { ...awaiting, upstreamUnknown: ["x"] })).toBe(false);
      const rendering = `waiting for PackageRevision "${target}" to render its current resources`;
      expect(statusWaits(status, 2, { ...awaiting, pending: [rendering] })).toBe(false);
    }
  });
});
