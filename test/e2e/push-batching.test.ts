import { execFileSync } from "node:child_process";
import { createGitRepository, registerRepository, pushesTo } from "../support/git";
import { createNamespace, deleteNamespace, getJson, kubectlOk } from "../support/kubectl";
import { condition, type PR } from "../support/package-revisions";
import { eventually } from "../support/wait";

// Issue 29: drafts of one repository created at once go to git together. A draft's reconcile
// hands its branch to the repository's next push and frees its worker; the push waits while
// more of the repository's drafts are on their way, so twelve drafts (three times the
// namespace's four workers: a push of writers that each hold a worker carries at most four)
// land in one push, two should the wait's bound (10 s) cut it. Counted at the git server. And status tells the truth meanwhile: a draft is Ready only once its
// branch is in git.
const DRAFTS = 12;

let ns: string;
let url: string;

beforeAll(async () => {
  ns = createNamespace("e2e-push-batching");
  url = await createGitRepository("batched-deployments");
  registerRepository(ns, "deployments", url);
  await eventually("the repository Ready", () => {
    const repo = getJson<PR>("repository", "deployments", ns);
    return condition(repo, "Ready")?.status === "True" ? repo : undefined;
  });
});
afterAll(() => deleteNamespace(ns));

/** The branches the git server has. */
const branches = (): Set<string> =>
  new Set(
    execFileSync("git", ["ls-remote", "--heads", url], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .map(line => line.split("\t")[1]),
  );

const draftName = (i: number) => `deployments.app-${i}.v1`;

/**
 * No other namespace is being torn down: an earlier file's namespace deleted without waiting
 * gives the operator PackageRevision work elsewhere, and while another namespace has work a new
 * draft waits for its push in its worker (the fairness rule), which this test does not count.
 */
async function othersQuiet(): Promise<void> {
  await eventually(
    "no other namespace terminating",
    () => {
      const terminating = JSON.parse(kubectlOk(["get", "namespaces", "-o", "json"])) as {
        items: { metadata: { name: string }; status?: { phase?: string } }[];
      };
      return terminating.items.some(n => n.status?.phase === "Terminating") ? undefined : true;
    },
    180_000,
  );
}

it("lands drafts of one repository created at once in fewer pushes than drafts, each Ready only once its branch is in git", async () => {
  await othersQuiet();
  const before = pushesTo(url);
  // The drafts exist before any is asked for: a revision without spec.lifecycle is left alone,
  // and the watch delivers their creations before the lifecycle's changes, so the first draft
  // to render already knows eleven more are on their way. Without that, the first drafts
  // could push before the others were created, and the count would measure the machine.
  const objects = (lifecycle?: string) =>
    JSON.stringify({
      apiVersion: "v1",
      kind: "List",
      items: Array.from({ length: DRAFTS }, (_, i) => ({
        apiVersion: "porch.kpt.dev/v1alpha2",
        kind: "PackageRevision",
        metadata: { name: draftName(i) },
        spec: {
          packageName: `app-${i}`,
          repository: "deployments",
          workspaceName: "v1",
          ...(lifecycle && { lifecycle }),
          source: { init: {} },
        },
      })),
    });
  kubectlOk(["apply", "-n", ns, "-f", "-"], objects());
  expect(pushesTo(url)).toBe(before);
  kubectlOk(["apply", "-n", ns, "-f", "-"], objects("Draft"));

  // Whenever a draft is seen Ready, its branch is already in git: any seen without is kept.
  const readySeen = new Set<string>();
  const readyWithoutBranch: string[] = [];
  await eventually(
    `all ${DRAFTS} drafts Ready`,
    () => {
      for (let i = 0; i < DRAFTS; i++) {
        if (readySeen.has(draftName(i))) continue;
        const pr = getJson<PR>("packagerevision", draftName(i), ns);
        if (condition(pr, "Ready")?.status !== "True") continue;
        if (!branches().has(`refs/heads/drafts/app-${i}/v1`)) readyWithoutBranch.push(draftName(i));
        readySeen.add(draftName(i));
      }
      return readySeen.size === DRAFTS ? true : undefined;
    },
    120_000,
  );

  expect(readyWithoutBranch).toEqual([]);
  const pushes = pushesTo(url) - before;
  expect(pushes).toBeGreaterThanOrEqual(1);
  expect(pushes).toBeLessThanOrEqual(2);
  for (let i = 0; i < DRAFTS; i++) expect(branches()).toContain(`refs/heads/drafts/app-${i}/v1`);
});
