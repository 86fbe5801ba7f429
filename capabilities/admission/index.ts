import { Capability } from "pepr";
import {
  PackageRevision,
  PackageRevisionResources,
  PackageVariant,
  PackageVariantSet,
  Repository,
} from "../../crd-types";
import { gitUrlPolicyFromEnv } from "../../lib/git/url-policy";
import {
  validatePackageVariant,
  validatePackageVariantSet,
  validateRepository,
} from "../../lib/validation";
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

When(PackageVariant).IsCreatedOrUpdated().Validate(denyProblems(validatePackageVariant));

When(PackageVariantSet).IsCreatedOrUpdated().Validate(denyProblems(validatePackageVariantSet));

When(PackageRevision).IsCreatedOrUpdated().Validate(validatePackageRevisionRequest);

When(PackageRevisionResources).IsUpdated().Validate(validateResourcesRequest);

When(Repository)
  .IsCreatedOrUpdated()
  .Validate(denyProblems(spec => validateRepository(spec, gitUrlPolicyFromEnv(process.env))));
