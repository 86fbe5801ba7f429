import { Capability } from "pepr";
import {
  PackageRevision,
  PackageRevisionResources,
  PackageVariant,
  PackageVariantSet,
} from "../../crd-types";
import { validatePackageVariant, validatePackageVariantSet } from "../../lib/validation";
import { execPolicy } from "../shared/exec-policy";
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
  .Validate(denyProblems(spec => validatePackageVariant(spec, execPolicy)));

When(PackageVariantSet).IsCreatedOrUpdated().Validate(denyProblems(validatePackageVariantSet));

When(PackageRevision).IsCreatedOrUpdated().Validate(validatePackageRevisionRequest);

When(PackageRevisionResources).IsCreatedOrUpdated().Validate(validateResourcesRequest);
