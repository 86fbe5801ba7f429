import type { CommitInfo, GitClient, TreeEntry } from "../../../lib/git/client";
import { Discovery, HEAD_LISTING_LIMIT } from "../../../lib/git/discovery";

// A branch listing is worth keeping only while its commit is the branch's head; a fleet's
// deployment branch gets a new head at every publish, so the listings kept must be bounded.

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n";

function fakeClient() {
  const listed: string[] = [];
  const commit = (oid: string): CommitInfo => {
    const who = { name: "a", email: "a@example.com", timestamp: 0, timezoneOffset: 0 };
    return { oid, tree: `tree-${oid}`, parents: [], message: "", author: who, committer: who };
  };
  const client: Partial<GitClient> = {
    readCommit: async oid => commit(oid),
    listTree: async (tree): Promise<TreeEntry[]> => {
      listed.push(tree);
      return [
        { mode: "040000", type: "tree", path: "pkg", oid: `pkg-${tree}` },
        { mode: "100644", type: "blob", path: "pkg/Kptfile", oid: "kptfile" },
      ];
    },
    readBlobs: async oids => new Map(oids.map(oid => [oid, Buffer.from(KPTFILE)])),
  };
  return { client: client as GitClient, listed };
}

it("lists a head again once more than HEAD_LISTING_LIMIT newer heads were listed", async () => {
  const { client, listed } = fakeClient();
  const discovery = new Discovery(client);
  const heads = Array.from({ length: HEAD_LISTING_LIMIT + 1 }, (_, i) => `c${i}`);
  for (const head of heads) {
    const packages = await discovery.packagesOnCommit(head, "");
    expect(packages.get("pkg")?.tree).toBe(`pkg-tree-${head}`);
  }
  expect(listed).toHaveLength(heads.length);

  await discovery.packagesOnCommit(heads[0], "");
  expect(listed).toHaveLength(heads.length + 1);
});

it("reuses the listing of a head listed recently", async () => {
  const { client, listed } = fakeClient();
  const discovery = new Discovery(client);
  await discovery.packagesOnCommit("c0", "");
  await discovery.packagesOnCommit("c0", "");
  expect(listed).toEqual(["tree-c0"]);
});
