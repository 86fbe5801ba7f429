import { Capability } from "pepr";
import { manager } from "../manager";
import { reconcileRepository } from "./reconcile";

/**
 * Repository: mirrors each registered git repository's packages and revisions as
 * PackageRevision (and PackageRevisionResources) objects, on a schedule and on demand.
 */
export const RepositoryCapability = new Capability({
  name: "repository",
  description: "Syncs Repository objects with git and mirrors their package revisions.",
});

export const repositoryController = manager.controller({
  name: "Repository",
  for: "Repository",
  // A deleted Repository's git cache is closed and deleted; its revisions leave git alone.
  forget: (repo, ctx) =>
    void ctx.stores.forget(repo.metadata?.namespace ?? "", repo.metadata?.name ?? ""),
  reconcile: reconcileRepository,
});
