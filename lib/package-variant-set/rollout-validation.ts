// Admission rules of spec.rollout and spec.deletionGuard (docs/package-variant-sets.md,
// “Rollout waves” and “Deletion guard”). Pure: the webhook and the controller share them.
import type { PackageVariantSetSpec } from "../../crd-types";
import { checkTemplateExpression, type TargetKind } from "../cel";
import type { LabelSelector } from "../kubernetes/label-selector";
import { invalid } from "../validation/field";
import { labelProblems } from "../validation/common";
import { labelValueProblem, qualifiedNameProblem } from "../validation/kubernetes-names";

type Rollout = NonNullable<PackageVariantSetSpec["rollout"]>;

const SET_BASED = ["In", "NotIn"];
const EXISTENCE = ["Exists", "DoesNotExist"];

/** A metav1.LabelSelector's problems, as the API server's label selector validation names them. */
export function labelSelectorProblems(selector: LabelSelector, path: string): string[] {
  const problems = labelProblems(selector.matchLabels, `${path}.matchLabels`);
  (selector.matchExpressions ?? []).forEach((e, i) => {
    const at = `${path}.matchExpressions[${i}]`;
    const keyProblem = qualifiedNameProblem(e.key ?? "");
    if (keyProblem) problems.push(invalid(`${at}.key`, e.key, keyProblem));
    const values = e.values ?? [];
    if (SET_BASED.includes(e.operator) && values.length === 0)
      problems.push(
        `${at}.values: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`,
      );
    else if (EXISTENCE.includes(e.operator) && values.length > 0)
      problems.push(
        `${at}.values: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'`,
      );
    else if (!SET_BASED.includes(e.operator) && !EXISTENCE.includes(e.operator))
      problems.push(invalid(`${at}.operator`, e.operator, "not a valid selector operator"));
    values.forEach((v, j) => {
      const problem = labelValueProblem(v);
      if (problem) problems.push(invalid(`${at}.values[${j}]`, v, problem));
    });
  });
  return problems;
}

/** `target` differs by target kind: an expression must type-check for each kind the set uses. */
function targetKinds(spec: PackageVariantSetSpec): TargetKind[] {
  const kinds = (spec.targets ?? []).map(t =>
    t.repositories !== undefined ? ("repositories" as const) : ("selector" as const),
  );
  return kinds.length > 0 ? [...new Set(kinds)] : ["selector"];
}

function waveProblems(spec: PackageVariantSetSpec, rollout: Rollout): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  (rollout.waves ?? []).forEach((wave, i) => {
    const at = `spec.rollout.waves[${i}]`;
    if (!wave.name) problems.push(`${at}.name cannot be empty`);
    else if (seen.has(wave.name))
      problems.push(invalid(`${at}.name`, wave.name, "duplicate wave name"));
    seen.add(wave.name);
    if (wave.selector) problems.push(...labelSelectorProblems(wave.selector, `${at}.selector`));
    if (wave.expression === undefined) return;
    for (const targetKind of targetKinds(spec)) {
      const problem = checkTemplateExpression(
        wave.expression,
        { targetKind, withRepository: true },
        "bool",
      );
      if (problem) {
        problems.push(`${at}.expression: ${problem}`);
        break;
      }
    }
  });
  return problems;
}

/** An IntOrString of a non-negative integer or a percentage from 0% to 100%. */
function maxDeletionsProblem(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "number")
    return Number.isInteger(value) && value >= 0 ? undefined : "must be a non-negative integer";
  const percent = typeof value === "string" ? /^(\d{1,3})%$/.exec(value) : null;
  if (!percent) return 'must be a non-negative integer or a percentage such as "25%"';
  return Number(percent[1]) <= 100 ? undefined : "a percentage must be between 0% and 100%";
}

/** Every problem of spec.rollout and spec.deletionGuard. */
export function rolloutProblems(spec: PackageVariantSetSpec): string[] {
  const problems: string[] = [];
  const rollout = spec.rollout;
  if (rollout) {
    problems.push(...waveProblems(spec, rollout));
    const max = rollout.maxInFlight;
    if (max !== undefined && !(Number.isInteger(max) && max >= 1))
      problems.push(invalid("spec.rollout.maxInFlight", max, "must be at least 1"));
  }
  const maxDeletions = spec.deletionGuard?.maxDeletions;
  const problem = maxDeletionsProblem(maxDeletions);
  if (problem) problems.push(invalid("spec.deletionGuard.maxDeletions", maxDeletions, problem));
  return problems;
}
