// Public API of the framework-free PackageRevision logic (docs/package-revisions.md): the
// conditions each field manager owns, and the outcomes of the controller's steps. The
// capability reads and writes; everything here is pure.
export {
  CONDITION_OWNERS,
  conditionTypesOf,
  type ConditionManager,
  type ConditionText,
  type ManagedConditions,
  type OwnedBy,
  type RevisionCondition,
  type RevisionConditionType,
} from "./conditions";
export { FIELD_MANAGERS } from "./field-managers";
export {
  alreadyStated,
  failureOutcome,
  revisionConditions,
  revisionFields,
  type CoreFields,
  type RenderFields,
  type RenderVerdict,
  type RevisionOutcome,
} from "./outcome";
