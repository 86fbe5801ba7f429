import {
  mutatesAtSource,
  SOURCE_MUTATIONS_ANNOTATION,
  sourceMutationsMark,
  sourceMutationsOwner,
} from "../../../lib/package-variant";
import { sourceMutationsProblem } from "../../../lib/package-variant/source-mutations";
import { PV_UID, revision, variant } from "./fixtures";

const marked = { [SOURCE_MUTATIONS_ANNOTATION]: PV_UID };

describe("which variant's mutations a new draft's source applies", () => {
  it("marks a variant's draft with the variant's UID", () => {
    expect(sourceMutationsMark(variant())).toEqual(marked);
    expect(sourceMutationsMark({ metadata: { name: "no-uid" } })).toEqual({});
  });

  it("applies them for the variant that controls the draft and targets its package", () => {
    const draft = revision({ ws: "packagevariant-1", source: true, annotations: marked });
    expect(sourceMutationsOwner(draft)).toEqual({ name: "my-pv", uid: PV_UID });
    expect(mutatesAtSource(draft, variant())).toBe(true);
  });

  it.each([
    [
      "no annotation (a draft someone else created)",
      revision({ ws: "w", source: true }),
      variant(),
    ],
    [
      "an annotation naming a variant that is not the controller",
      revision({ ws: "w", source: true, annotations: marked, owner: "other-uid" }),
      variant(),
    ],
    [
      "a variant recreated under the same name",
      revision({ ws: "w", source: true, annotations: marked }),
      { ...variant(), metadata: { ...variant().metadata, uid: "new-uid" } },
    ],
    [
      "a variant being deleted",
      revision({ ws: "w", source: true, annotations: marked }),
      { ...variant(), metadata: { ...variant().metadata, deletionTimestamp: new Date() } },
    ],
    [
      "a variant retargeted to another package",
      revision({ ws: "w", source: true, annotations: marked }),
      variant({ downstream: { repo: "edge01", package: "other" } }),
    ],
    ["no variant", revision({ ws: "w", source: true, annotations: marked }), undefined],
  ])("not for %s", (_, draft, pv) => {
    expect(mutatesAtSource(draft, pv)).toBe(false);
  });
});

describe("admission of the annotation", () => {
  const problem = `metadata.annotations[${SOURCE_MUTATIONS_ANNOTATION}] is set only by the operator, on the drafts its PackageVariants create; it cannot be set or changed`;

  it("refuses it from a client creating a revision or adding or changing it", () => {
    expect(sourceMutationsProblem(marked, undefined)).toBe(problem);
    expect(sourceMutationsProblem({ [SOURCE_MUTATIONS_ANNOTATION]: "x" }, marked)).toBe(problem);
  });

  it("lets a client keep it or remove it", () => {
    expect(sourceMutationsProblem(marked, marked)).toBeUndefined();
    expect(sourceMutationsProblem({}, marked)).toBeUndefined();
    expect(sourceMutationsProblem(undefined, undefined)).toBeUndefined();
  });
});
