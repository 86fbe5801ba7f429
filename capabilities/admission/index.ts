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
  packageVariantReads,
  packageVariantSetReads,
  packageVariantSetKindProblems,
  validatePackageVariant,
  validatePackageVariantSet,
} from "../../lib/validation";
import {
  listedTargetProblems,
  planSpecProblems,
  setTargetLimitFromEnv,
} from "../../lib/package-variant-set";
import { readableKindPolicy } from "../shared/readable-kinds";
import { operator } from "../operator";
import { policyGrantProblems, stampPolicyGrants } from "./approval-policy";
import { stampApprovalRecord } from "./approval-record";
import { denyProblems } from "./deny-problems";
import { validatePackageRevisionRequest, validateResourcesRequest } from "./package-revisions";
import { validateRepositoryRequest } from "./repositories";
import { keepResourcesIdentity } from "./resources-identity";
import { readProblems, requestContext } from "./requests";

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

/**
 * The operator writes the PackageVariants of a set: those inherit the reads checked when the
 * set was admitted (README, Security model).
 */
const byOperator = async (req: Parameters<typeof requestContext>[1]) =>
  (await requestContext(operator, req)).byOperator;

// Who granted an approval policy, written from the authenticated user (approval-policy.ts).
When(PackageVariant)
  .IsCreatedOrUpdated()
  .Mutate(req => stampPolicyGrants(operator, req));

When(PackageVariant)
  .IsCreatedOrUpdated()
  .Validate(
    denyProblems(async (spec, req) => {
      const policy = await readableKindPolicy(operator);
      const problems = [
        ...validatePackageVariant(spec, operator.render.catalog.current()),
        ...packageVariantKindProblems(spec, policy),
      ];
      if (problems.length === 0) problems.push(...(await policyGrantProblems(operator, req)));
      // What the requester may not read is asked only of a spec whose reads are well formed.
      if (problems.length > 0 || (await byOperator(req))) return problems;
      return readProblems(operator, req, packageVariantReads(spec, policy));
    }),
  );

When(PackageVariantSet)
  .IsCreatedOrUpdated()
  .Mutate(req => stampPolicyGrants(operator, req));

When(PackageVariantSet)
  .IsCreatedOrUpdated()
  .Validate(
    denyProblems(async (spec, req) => {
      const policy = await readableKindPolicy(operator);
      const problems = [
        ...validatePackageVariantSet(spec),
        ...listedTargetProblems(spec, setTargetLimitFromEnv(process.env).maxTargets),
        ...planSpecProblems(spec),
        ...packageVariantSetKindProblems(spec, policy),
      ];
      if (problems.length === 0) problems.push(...(await policyGrantProblems(operator, req)));
      if (problems.length > 0 || (await byOperator(req))) return problems;
      return readProblems(operator, req, packageVariantSetReads(spec, policy));
    }),
  );

// Who proposed and who approved (approval-record.ts), who granted an approval policy
// (approval-policy.ts): written from the authenticated user.
When(PackageRevision)
  .IsCreatedOrUpdated()
  .Mutate(async req => {
    await stampApprovalRecord(operator, req);
    await stampPolicyGrants(operator, req);
  });

When(PackageRevision)
  .IsCreatedOrUpdated()
  .Validate(req => validatePackageRevisionRequest(operator, req));

// A whole-object update that sends only the files keeps the revision they belong to.
When(PackageRevisionResources)
  .IsUpdated()
  .Mutate(req => keepResourcesIdentity(req));

When(PackageRevisionResources)
  .IsCreatedOrUpdated()
  .Validate(req => validateResourcesRequest(operator, req));

When(Repository)
  .IsCreatedOrUpdated()
  .Validate(req => validateRepositoryRequest(operator, req));
