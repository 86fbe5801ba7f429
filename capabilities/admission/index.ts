import { Capability } from "pepr";
import {
  PackageRevision,
  PackageRevisionResources,
  PackageVariant,
  PackageVariantSet,
} from "../../crd-types";
import {
  packageVariantKindProblems,
  packageVariantSetKindProblems,
  validatePackageVariant,
  validatePackageVariantSet,
} from "../../lib/validation";
import { readableKindPolicy } from "../shared/readable-kinds";
import { denyProblems } from "./deny-problems";
import { validatePackageRevisionRequest, validateResourcesRequest } from "./package-revisions";

/**
 * Admission: invalid PackageVariant and PackageVariantSet specs, and impossible PackageRevision
 * moves, are rejected when applied, with one message naming every problem. The rules are pure
 * functions the controllers reuse.
 */
export const Admission = new Capability({
  name: "admission",
  description: "Validates variants, variant sets (CEL included) and package revision moves.",
});

const { When } = Admission;

When(PackageVariant)
  .IsCreatedOrUpdated()
  .Validate(
    denyProblems(async spec => [
      ...validatePackageVariant(spec),
      ...packageVariantKindProblems(spec, await readableKindPolicy()),
    ]),
  );

When(PackageVariantSet)
  .IsCreatedOrUpdated()
  .Validate(
    denyProblems(async spec => [
      ...validatePackageVariantSet(spec),
      ...packageVariantSetKindProblems(spec, await readableKindPolicy()),
    ]),
  );

When(PackageRevision).IsCreatedOrUpdated().Validate(validatePackageRevisionRequest);

When(PackageRevisionResources).IsUpdated().Validate(validateResourcesRequest);
