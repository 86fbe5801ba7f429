// The attacks of the noisy-neighbour scenario, each made by one tenant in a namespace of its own
// as issue 26 describes them: a 96 MiB file on a tag of the tenant's own git server, the
// multiplying apply-replacements edit, drafts cloning from a server that trickles one byte a
// second, and a burst of drafts. Each returns its attacking objects, read fresh from the API.
import { join } from "node:path";
import { paths, type KubeObject } from "../../bench/kube";
import { mapLimit } from "../../lib/controller/concurrency";
import { startGitServerProcess } from "../../hack/git-server-process";
import { startTrickleServer } from "../../test/support/hostile-servers";
import type { FaultContext } from "../context";
import { pushHugeBlob } from "../huge-blob";
import { multiplyingPackage } from "../multiplying-edit";
import type { AttackName } from "../results";
import type { NoisyNeighbourSizes } from "../sizes";
import { createTenant, draft, isReady, repositoryObject, type Tenant } from "./tenant";

export interface Attack {
  /**
   * Each attacking object, with the objects that carry its outcome (a Repository and the
   * revisions it mirrored), read from the API now.
   */
  objects(): Promise<KubeObject[][]>;
  /** Whether its objects must end naming a limit (a burst hits none: they must end Ready). */
  hitsLimit: boolean;
  stop(): Promise<void>;
}

type StartAttack = (ctx: FaultContext, ns: string, sizes: NoisyNeighbourSizes) => Promise<Attack>;

const list = async (ctx: FaultContext, path: string) =>
  (await ctx.api.json<{ items: KubeObject[] }>("GET", path)).items;

/** Each revision of `tenant`'s repository, one attacking object each. */
const revisionsOf = (ctx: FaultContext, tenant: Tenant) => async () =>
  (await list(ctx, paths.pr(tenant.ns)))
    .filter(pr => pr.spec?.repository === tenant.repo)
    .map(pr => [pr]);

/** Creates `count` drafts of `tenant`, 16 requests at a time. */
async function createDrafts(
  ctx: FaultContext,
  tenant: Tenant,
  count: number,
  prefix: string,
  source: (i: number) => unknown,
): Promise<void> {
  await mapLimit(
    Array.from({ length: count }, (_, i) => i),
    16,
    async i => {
      await ctx.api.create(paths.pr(tenant.ns), draft(tenant, `${prefix}-${i}`, source(i)));
    },
  );
}

/** (a) A Repository whose tag `big/v1` holds one `blobMiB` file, on the tenant's own server. */
const hugeBlob: StartAttack = async (ctx, ns, sizes) => {
  await ctx.api.create(paths.namespaces, { metadata: { name: ns } });
  const server = await startGitServerProcess(
    "tenant-git-server",
    join(ctx.workDir, "tenant-git"),
    join(ctx.env.stateDir, "logs"),
  );
  try {
    const { url } = await server.createBareRepo("huge");
    await pushHugeBlob(url, "big", sizes.blobMiB, join(ctx.workDir, "tenant-src"));
    ctx.log(`pushed a ${sizes.blobMiB} MiB file on tag big/v1 of ${url}`);
    await ctx.api.create(paths.repo(ns), repositoryObject("huge", url));
  } catch (error) {
    await server.close();
    throw error;
  }
  return {
    hitsLimit: true,
    objects: async () => {
      const [repositories, revisions] = await Promise.all([
        list(ctx, paths.repo(ns)),
        list(ctx, paths.pr(ns)),
      ]);
      return [[...repositories, ...revisions.filter(pr => pr.spec?.repository === "huge")]];
    },
    stop: () => server.close(),
  };
};

/** (b) A draft whose files are replaced by the ~1 KB multiplying apply-replacements package. */
const multiplyingFunction: StartAttack = async (ctx, ns, sizes) => {
  const tenant = await createTenant(ctx, ns, "fn");
  const pr = draft(tenant, "multiply", { init: { description: "multiplies itself" } });
  try {
    await ctx.api.create(paths.pr(ns), pr);
    await tenant.revisions.until(
      `draft ${pr.metadata.name} Ready`,
      () => (isReady(tenant.revisions.items.get(pr.metadata.name)) ? true : undefined),
      sizes.attackSeconds * 1000,
    );
    await ctx.api.mergePatch(paths.prr(ns), pr.metadata.name, {
      spec: { resources: multiplyingPackage("multiply", sizes.multiplyTargets) },
    });
  } finally {
    tenant.stop();
  }
  return { hitsLimit: true, objects: revisionsOf(ctx, tenant), stop: async () => undefined };
};

/** (c) Drafts cloning from a loopback server that sends one byte a second and never answers. */
const tricklingClones: StartAttack = async (ctx, ns, sizes) => {
  const tenant = await createTenant(ctx, ns, "clones");
  tenant.stop();
  // Bounded: after attackSeconds plus a minute of bytes it falls silent; stop() closes it.
  const server = await startTrickleServer({
    intervalMs: 1000,
    maxBytes: sizes.attackSeconds + 60,
  });
  try {
    await createDrafts(ctx, tenant, sizes.trickleSources, "slow", i => ({
      cloneFrom: {
        type: "git",
        git: { repo: `${server.url}/slow-${i}.git`, ref: "main", directory: "pkg" },
      },
    }));
  } catch (error) {
    await server.close();
    throw error;
  }
  return { hitsLimit: true, objects: revisionsOf(ctx, tenant), stop: () => server.close() };
};

/** (d) `burst` new drafts at once. */
const draftBurst: StartAttack = async (ctx, ns, sizes) => {
  const tenant = await createTenant(ctx, ns, "burst");
  tenant.stop();
  await createDrafts(ctx, tenant, sizes.burst, "burst", () => ({
    init: { description: "one of a burst" },
  }));
  return { hitsLimit: false, objects: revisionsOf(ctx, tenant), stop: async () => undefined };
};

export const ATTACK_STARTS: Record<AttackName, StartAttack> = {
  hugeBlob,
  multiplyingFunction,
  tricklingClones,
  draftBurst,
};
