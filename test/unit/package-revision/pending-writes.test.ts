import { heldBytes, PendingWrites } from "../../../capabilities/package-revision/pending-writes";
import type { PackageRevisionInfo } from "../../../lib/git";

// Handed-in drafts keep their rendered files until their next reconcile: a tenant whose git
// server is slow would otherwise have every draft of theirs handed in and held. Past a bound per
// namespace and in all, a draft is pushed with its reconcile waiting in a worker instead.
const never = new Promise<PackageRevisionInfo>(() => {});

it("has room for a namespace's drafts up to its bound, and for others' up to the total", () => {
  const drafts = new PendingWrites<string>({ total: 250, perNamespace: 100 });
  drafts.handIn("a/r1", "u1", "a/repo", "files", 60, never);
  expect(drafts.hasRoom("a/repo", 40)).toBe(true);
  expect(drafts.hasRoom("a/other", 41)).toBe(false); // the namespace's, whatever the repository
  drafts.handIn("b/r1", "u2", "b/repo", "files", 100, never);
  expect(drafts.hasRoom("c/repo", 90)).toBe(true);
  expect(drafts.hasRoom("c/repo", 91)).toBe(false); // the total
  drafts.forget("a/r1");
  expect(drafts.hasRoom("a/repo", 100)).toBe(true);
  expect(drafts.held).toBe(100);
});

it("gives a settled draft's result to its next reconcile once, and only to the same object", async () => {
  const drafts = new PendingWrites<string>({ total: 1000, perNamespace: 1000 });
  const woken: string[] = [];
  drafts.onSettled(key => woken.push(key));
  let land: (info: PackageRevisionInfo) => void = () => {};
  const push = new Promise<PackageRevisionInfo>(resolve => (land = resolve));
  drafts.handIn("a/r1", "u1", "a/repo", "files", 10, push);
  expect(drafts.take("a/r1", "u1")).toEqual({ state: "pending" });
  land({ packageName: "p" } as PackageRevisionInfo);
  await push;
  await Promise.resolve();
  expect(woken).toEqual(["a/r1"]);
  expect(drafts.take("a/r1", "other-uid")).toBeUndefined();
  expect(drafts.held).toBe(0);
});

it("counts a draft's files as the heap holds them", () => {
  expect(heldBytes({ Kptfile: "abc" })).toBe(2 * (7 + 3) + 96);
});
