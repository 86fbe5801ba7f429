import {
  annotateMessage,
  annotatedWorkspace,
  deletionProposedBranch,
  draftBranch,
  packageNameIn,
  packagePath,
  parseAnnotations,
  parseRef,
  proposedBranch,
  revisionFromTag,
  tagRef,
  validatePackageName,
  validateWorkspaceName,
} from "../../../lib/git/layout";
import { scrubSecrets } from "../../../lib/git/errors";
import { readKptfile } from "../../../lib/git";
import { encodeCommit, encodeTree, objectId, parseTree } from "../../../lib/git/loose-objects";
import { parseCommit } from "../../../lib/git/commit-format";

describe("ref names", () => {
  it("names refs as the reference does", () => {
    expect(draftBranch("catalog/app", "ws")).toBe("refs/heads/drafts/catalog/app/ws");
    expect(proposedBranch("app", "ws")).toBe("refs/heads/proposed/app/ws");
    expect(tagRef("catalog/app", 3)).toBe("refs/tags/catalog/app/v3");
    expect(deletionProposedBranch("app", 3, "ws")).toBe("refs/heads/deletionProposed/app/v3");
    expect(deletionProposedBranch("app", -1, "main")).toBe("refs/heads/deletionProposed/app/main");
  });

  it.each([
    ["refs/heads/drafts/a/b/ws", { kind: "draft", path: "a/b", leaf: "ws" }],
    ["refs/heads/proposed/app/ws", { kind: "proposed", path: "app", leaf: "ws" }],
    ["refs/heads/deletionProposed/app/v2", { kind: "deletionProposed", path: "app", leaf: "v2" }],
    ["refs/tags/a/b/v7", { kind: "tag", path: "a/b", leaf: "v7" }],
    ["refs/heads/main", { kind: "branch", name: "main" }],
    ["refs/heads/drafts/nows", undefined],
    ["refs/tags/v1.0", undefined],
    ["refs/notes/commits", undefined],
  ])("parses %s", (ref, parsed) => {
    expect(parseRef(ref)).toEqual(parsed);
  });

  it.each([
    ["v3", 3],
    ["3", 3],
    ["v10", 10],
    ["stable", -1],
    ["v1.2", -1],
    ["", -1],
  ])("reads revision %p as %p", (leaf, revision) => {
    expect(revisionFromTag(leaf)).toBe(revision);
  });

  it.each([
    ["", "app", "app"],
    ["catalog", "catalog/app", "app"],
    ["catalog", "catalogue/app", undefined],
    ["catalog", "other/app", undefined],
  ])("places packages relative to directory %p", (dir, path, name) => {
    expect(packageNameIn(dir, path)).toBe(name);
    if (name !== undefined) expect(packagePath(dir, name)).toBe(path);
  });
});

describe("commit annotations", () => {
  it("writes and reads the kpt: line", () => {
    const message = annotateMessage("Approving package revision app/1", {
      package: "app",
      workspaceName: "ws",
      revision: "1",
    });
    expect(message).toBe(
      'Approving package revision app/1\n\nkpt:{"package":"app","workspaceName":"ws","revision":"1"}\n',
    );
    expect(annotatedWorkspace(message, "app")).toBe("ws");
    expect(annotatedWorkspace(message, "other")).toBeUndefined();
  });

  it("skips malformed annotations", () => {
    expect(parseAnnotations('x\nkpt:{bad json\n  kpt:{"package":"a"}\nkpt:[1]\n')).toEqual([
      { package: "a" },
    ]);
  });
});

describe("validation and scrubbing", () => {
  it.each(["ws", "a-1", "x".repeat(63)])("accepts workspace %p", ws =>
    expect(() => validateWorkspaceName(ws)).not.toThrow(),
  );
  it.each(["", "-a", "A", "a_b", "x".repeat(64), "a/b"])("rejects workspace %p", ws =>
    expect(() => validateWorkspaceName(ws)).toThrow(/workspaceName/),
  );
  it.each(["app", "a/b/c", "my.pkg"])("accepts package %p", p =>
    expect(() => validatePackageName(p)).not.toThrow(),
  );
  it.each(["", "/a", "a//b", "../a", "a/..", "A", ".hidden"])("rejects package %p", p =>
    expect(() => validatePackageName(p)).toThrow(/package name/),
  );

  it("removes userinfo and secrets", () => {
    expect(scrubSecrets("fatal: https://u:pw@host/r.git and http://tok@x/y", ["hunter22"])).toBe(
      "fatal: https://***@host/r.git and http://***@x/y",
    );
    expect(scrubSecrets("Authorization: Basic hunter22", ["hunter22"])).toBe(
      "Authorization: Basic ***",
    );
  });
});

describe("Kptfile reading", () => {
  it.each([
    ["apiVersion: kpt.dev/v1\nkind: Kptfile\n", { ok: true, upstreamLock: undefined }],
    ["kind: Kptfile\nupstreamLock:\n  type: git\n", { ok: true, upstreamLock: { type: "git" } }],
    [
      "kind: Kptfile\nmetadata: [x\n",
      { ok: false, error: expect.stringMatching(/^Kptfile does not parse/) },
    ],
    ["- a\n", { ok: false, error: "Kptfile is not a YAML mapping" }],
    ["kind: Other\n", { ok: false, error: 'Kptfile has kind "Other", expected "Kptfile"' }],
    // An empty document after a separator is no second object (kpt's own reading agrees).
    ["kind: Kptfile\n---\n", { ok: true, upstreamLock: undefined }],
  ])("reads %p", (text, expected) => {
    expect(readKptfile(text)).toEqual(expected);
  });
});

describe("git object encoding", () => {
  it("matches git's object ids for an empty tree and round-trips trees and commits", () => {
    expect(objectId("tree", encodeTree([]))).toBe("4b825dc642cb6eb9a060e54bf8d69288fbee4904");
    expect(objectId("blob", Buffer.from("hello\n"))).toBe(
      "ce013625030ba8dba906f756967f9e9ca394464a",
    );
    const entries = [
      {
        mode: "040000",
        path: "dir",
        oid: "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
        type: "tree" as const,
      },
      {
        mode: "100644",
        path: "f",
        oid: "ce013625030ba8dba906f756967f9e9ca394464a",
        type: "blob" as const,
      },
    ];
    expect(parseTree(encodeTree(entries))).toEqual(entries);
    const sig = { name: "A", email: "a@x", timestamp: 1700000000, timezoneOffset: 90 };
    const spec = {
      tree: entries[0].oid,
      parents: ["1".repeat(40)],
      message: "m\n\nkpt:{}\n",
      author: sig,
      committer: { ...sig, timezoneOffset: -300 },
    };
    expect(parseCommit(encodeCommit(spec).toString("utf8"))).toEqual(spec);
  });
});
