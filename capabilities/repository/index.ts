import { Capability } from "pepr";
import { Repository } from "../../crd-types";
import { operator } from "../operator";
import { Controller } from "../shared/controller";
import { reconcileRepository } from "./reconcile";

/**
 * Repository: mirrors each registered git repository's packages and revisions as
 * PackageRevision (and PackageRevisionResources) objects, on a schedule and on demand.
 */
export const RepositoryCapability = new Capability({
  name: "repository",
  description: "Syncs Repository objects with git and mirrors their package revisions.",
});

const { When } = RepositoryCapability;

export const repositoryController = new Controller("Repository", key =>
  reconcileRepository(key, operator),
);

When(Repository).IsCreatedOrUpdated().Watch(repositoryController.enqueue);
When(Repository)
  .IsDeleted()
  .Watch(repo => operator.stores.forget(repo.metadata?.namespace ?? "", repo.metadata?.name ?? ""));
