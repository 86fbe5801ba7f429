import cfg from "./package.json";
import { Admission } from "./capabilities/admission";
import { startModule } from "./capabilities/module";

/**
 * porch-pepr: Porch's package-variant automation as a Pepr module.
 * - Admission: rejects invalid PackageVariant / PackageVariantSet specs with every problem named.
 */
startModule(cfg, [Admission]);
