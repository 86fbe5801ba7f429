import { Capability } from "pepr";
import {
  PackageRevision,
  PackageRevisionResources,
  PackageVariant,
  PackageVariantSet,
  Repository,
} from "../../crd-types";
import {
  packageVariantKindProblems,
  packageVariantSetKindProblems,
  validatePackageVariant,
  validatePackageVariantSet,
} from "../../lib/validation";
import { readableKindPolicy } from "../shared/readable-kinds";
import { operator } from "../operator";
import { denyProblems } from "./deny-problems";
import { validatePackageRevisionRequest, validateResourcesRequest } from "./package-revisions";
import { validateRepositoryRequest } from "./repositories";

/**
 * Admission: invalid PackageVariant and PackageVariantSet specs, impossible PackageRevision
 * moves and credentials the requester may not read are rejected when applied, with one message
 * naming every problem. The rules are pure functions the controllers reuse; the operator's own
 * writes are recognised by the identity the API server authenticated, nothing else.
 */
export const Admission = new Capability({
  name: "admission",
  description:
    "Validates variants, variant sets (CEL included), package revision moves and secret use.",
});

const { When } = Admission;

When(PackageVariant)
  .IsCreatedOrUpdated()
  .Validate(
    denyProblems(async spec => [
      ...validatePackageVariant(spec, operator.render.catalog.current()),
      ...packageVariantKindProblems(spec, await readableKindPolicy(operator)),
    ]),
  );

When(PackageVariantSet)
  .IsCreatedOrUpdated()
  .Validate(
    denyProblems(async spec => [
      ...validatePackageVariantSet(spec),
      ...packageVariantSetKindProblems(spec, await readableKindPolicy(operator)),
    ]),
  );

When(PackageRevision)
  .IsCreatedOrUpdated()
  .Validate(req => validatePackageRevisionRequest(operator, req));

When(PackageRevisionResources)
  .IsCreatedOrUpdated()
  .Validate(req => validateResourcesRequest(operator, req));

When(Repository)
  .IsCreatedOrUpdated()
  .Validate(req => validateRepositoryRequest(operator, req));
