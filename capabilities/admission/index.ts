import { Capability } from "pepr";
import { PackageVariant, PackageVariantSet } from "../../crd-types";
import { validatePackageVariant, validatePackageVariantSet } from "../../lib/validation";
import { denyProblems } from "./deny-problems";

/**
 * Admission: invalid PackageVariant and PackageVariantSet specs are rejected when applied,
 * with one message naming every problem. The rules are pure functions the controllers reuse.
 */
export const Admission = new Capability({
  name: "admission",
  description: "Validates PackageVariant and PackageVariantSet specs (CEL templates included).",
});

const { When } = Admission;

When(PackageVariant).IsCreatedOrUpdated().Validate(denyProblems(validatePackageVariant));

When(PackageVariantSet).IsCreatedOrUpdated().Validate(denyProblems(validatePackageVariantSet));
