import { createGitRepository, registerRepository } from "../support/git";
import { startTrickleServer, type HostileServer } from "../support/hostile-servers";
import { createNamespace, deleteNamespace, getJson } from "../support/kubectl";
import { condition, createRevision, type PR } from "../support/package-revisions";
import { eventually } from "../support/wait";

// Issue 26: one tenant's drafts waiting on a slow clone source hold at most their namespace's
// share of the PackageRevision workers (4 of 8 by default) and no render slot, so another
// tenant's draft is served meanwhile. Counted, not timed: the slow server counts the fetches
// open at once.
const NOISY_DRAFTS = 12;
const SHARE = 4;

let noisy: string;
let victim: string;
let slow: HostileServer;

beforeAll(async () => {
  noisy = createNamespace("e2e-noisy");
  victim = createNamespace("e2e-victim");
  // Ten bytes a second of an answer that never ends: each fetch holds its worker until the
  // low-speed rule (or the total timeout) cuts it, then its retry holds it again.
  slow = await startTrickleServer({ intervalMs: 100, maxBytes: 100_000, inBody: true });
  registerRepository(noisy, "deployments", await createGitRepository("noisy-deployments"));
  registerRepository(victim, "deployments", await createGitRepository("victim-deployments"));
});
afterAll(async () => {
  await slow.close();
  deleteNamespace(noisy);
  deleteNamespace(victim);
});

const ready = (namespace: string, name: string) =>
  condition(getJson<PR>("packagerevision", name, namespace), "Ready");

it("serves another tenant's draft while one tenant's drafts wait on a slow clone source", async () => {
  const clones = Array.from({ length: NOISY_DRAFTS }, (_, i) =>
    createRevision(noisy, "deployments", `slow-${i}`, "v1", {
      // One URL each: fetches of one URL share its cache and take turns on its lock.
      cloneFrom: { git: { repo: `${slow.url}/upstream-${i}.git`, ref: "main", directory: "/" } },
    }),
  );
  await eventually(
    `${SHARE} fetches open on the slow server`,
    () => {
      if (slow.peakOpen!() >= SHARE) return true;
      // What the drafts say meanwhile, for the message if this times out.
      const status = getJson<PR>("packagerevision", clones[0], noisy)?.status;
      throw new Error(
        `${slow.seen.length} connections, at most ${slow.peakOpen!()} at once; ${clones[0]}: ${JSON.stringify(status)}`,
      );
    },
    60_000,
  );

  const draft = createRevision(victim, "deployments", "app", "v1", { init: {} });
  const done = await eventually("the victim's draft Ready", () => {
    const c = ready(victim, draft);
    return c?.status === "True" ? c : undefined;
  });

  expect(done.reason).toBe("Ready");
  // The noisy namespace never had more than its share of the workers fetching at once, though
  // twelve of its drafts were waiting.
  expect(slow.peakOpen!()).toBe(SHARE);
  expect(
    clones.every(
      name => getJson<PR>("packagerevision", name, noisy)?.status?.creationSource === undefined,
    ),
  ).toBe(true);
});
