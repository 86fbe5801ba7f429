import { newWorkspaceName, packageRevisionObjectName } from "../../../lib/package-variant";
import { revision } from "./fixtures";

describe("newWorkspaceName", () => {
  it.each([
    ["no revisions", [], "packagevariant-1"],
    ["one earlier", [revision({ ws: "packagevariant-1" })], "packagevariant-2"],
    [
      "the highest, not the count",
      [revision({ ws: "packagevariant-7" }), revision({ ws: "packagevariant-3" })],
      "packagevariant-8",
    ],
    [
      "other workspace names ignored",
      [revision({ ws: "v1" }), revision({ ws: "main" })],
      "packagevariant-1",
    ],
    [
      "a non-integer suffix counts as 0",
      [revision({ ws: "packagevariant-x" })],
      "packagevariant-1",
    ],
    [
      "unowned revisions count",
      [revision({ ws: "packagevariant-4", owner: false })],
      "packagevariant-5",
    ],
    [
      "deleting revisions count",
      [revision({ ws: "packagevariant-4", deleting: true })],
      "packagevariant-5",
    ],
    [
      "other packages ignored",
      [revision({ ws: "packagevariant-9", pkg: "other" })],
      "packagevariant-1",
    ],
    [
      "other repositories ignored",
      [revision({ ws: "packagevariant-9", repo: "edge02" })],
      "packagevariant-1",
    ],
  ])("%s → %s", (_, revisions, expected) => {
    expect(newWorkspaceName(revisions, "edge01", "nginx")).toBe(expected);
  });
});

describe("packageRevisionObjectName", () => {
  it.each([
    ["edge01", "nginx", "packagevariant-1", "edge01.nginx.packagevariant-1"],
    ["edge01", "apps/nginx", "packagevariant-2", "edge01.apps.nginx.packagevariant-2"],
    ["edge01", "/apps//nginx/", "ws", "edge01.apps.nginx.ws"],
  ])("%s %s %s → %s", (repo, pkg, ws, expected) => {
    expect(packageRevisionObjectName(repo, pkg, ws)).toBe(expected);
  });
});
