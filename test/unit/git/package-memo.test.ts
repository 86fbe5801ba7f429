import { DEFAULT_CONTENT_LIMITS } from "../../../lib/git/content-limits";
import { PackageMemo } from "../../../lib/git/package-memo";

// Package files by tree id, bounded in bytes: a tenant's huge repository cannot grow the memo
// past its setting, only push older entries out.
const LIMITS = DEFAULT_CONTENT_LIMITS;
const pkg = (bytes: number) => ({ Kptfile: "kind: Kptfile\n", "data.yaml": "x".repeat(bytes) });

it("keeps what was read and answers with a copy the caller may change", () => {
  const memo = new PackageMemo(1024 * 1024);
  const files = pkg(10);
  memo.set("repo", "t1", files);
  files["data.yaml"] = "changed by the reader";
  const first = memo.get("repo", "t1", LIMITS)!;
  expect(first).toEqual(pkg(10));
  first.Kptfile = "changed again";
  expect(memo.get("repo", "t1", LIMITS)).toEqual(pkg(10));
});

it("answers only the repository that read the tree", () => {
  const memo = new PackageMemo(1024 * 1024);
  memo.set("repo-a", "t1", pkg(10));
  expect(memo.get("repo-b", "t1", LIMITS)).toBeUndefined();
});

it("stays within its bytes, dropping the least recently read first", () => {
  const memo = new PackageMemo(64 * 1024);
  for (let i = 0; i < 100; i++) {
    memo.set("repo", `t${i}`, pkg(1000));
    if (i >= 1) memo.get("repo", "t0", LIMITS); // t0 stays the most recently read
    expect(memo.bytes).toBeLessThanOrEqual(64 * 1024);
  }
  expect(memo.get("repo", "t0", LIMITS)).toEqual(pkg(1000));
  expect(memo.get("repo", "t1", LIMITS)).toBeUndefined();
  expect(memo.get("repo", "t99", LIMITS)).toEqual(pkg(1000));
});

it("does not keep a package larger than an eighth of it", () => {
  const memo = new PackageMemo(64 * 1024);
  memo.set("repo", "small", pkg(100));
  memo.set("repo", "big", pkg(8 * 1024));
  expect(memo.get("repo", "big", LIMITS)).toBeUndefined();
  expect(memo.get("repo", "small", LIMITS)).toEqual(pkg(100));
});

it("does not answer for a package that breaks tighter limits than it was read with", () => {
  const memo = new PackageMemo(1024 * 1024);
  memo.set("repo", "t1", pkg(500));
  expect(memo.get("repo", "t1", { ...LIMITS, maxFileBytes: 499 })).toBeUndefined();
  expect(memo.get("repo", "t1", { ...LIMITS, maxPackageBytes: 510 })).toBeUndefined();
  expect(memo.get("repo", "t1", { ...LIMITS, maxPackageFiles: 1 })).toBeUndefined();
  expect(memo.get("repo", "t1", LIMITS)).toEqual(pkg(500));
});
