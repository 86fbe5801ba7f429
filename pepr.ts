import cfg from "./package.json";
import { Admission } from "./capabilities/admission";
import { PackageVariantSetCapability } from "./capabilities/package-variant-set";
import { startModule } from "./capabilities/module";

/**
 * porch-pepr: Porch's package-variant automation as a Pepr module.
 * - Admission: rejects invalid PackageVariant / PackageVariantSet specs with every problem named.
 * - PackageVariantSet: fans an upstream out to many targets as PackageVariants.
 */
startModule(cfg, [Admission, PackageVariantSetCapability]);
