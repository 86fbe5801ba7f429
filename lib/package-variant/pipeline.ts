// spec.pipeline prepended to the Kptfile pipeline (docs/package-variants.md, “Pipeline
// editing”): each function is named `PackageVariant.<pv>.<function name>.<index>`, and this
// PackageVariant's entries from earlier reconciles are removed first, so applying is idempotent.
import { isMap, isSeq, YAMLMap, YAMLSeq } from "yaml";
import type { PackageVariantSpec } from "../../crd-types";
import { KPTFILE, setSection, type Kptfile } from "../kpt/kptfile";
import type { PackageFiles } from "../kpt/types";
import { deleteField, getField, isMissingOrNull, plain, setField, toNode } from "../krm/nodes";
import { MutationError } from "./errors";
import { editKptfile } from "./kptfile-edit";

type Pipeline = NonNullable<PackageVariantSpec["pipeline"]>;
type KptFunction = NonNullable<Pipeline["mutators"]>[number];

export const FUNCTION_NAME_PREFIX = "PackageVariant";

/** Kptfile Pipeline field order (kpt's struct): mutators before validators. */
const STAGES = ["mutators", "validators"] as const;
/** kpt Function field order. */
const FUNCTION_FIELDS = [
  "image",
  "exec",
  "configPath",
  "configMap",
  "name",
  "selectors",
  "exclude",
] as const;

export function packageVariantFunctionName(
  pvName: string,
  fnName: string | undefined,
  index: number,
): string {
  return `${FUNCTION_NAME_PREFIX}.${pvName}.${fnName ?? ""}.${index}`;
}

/**
 * Whether a Kptfile function name was generated for this PackageVariant. For a PackageVariant
 * name without dots this is the reference's rule (four dot-separated parts: the prefix, this
 * name, any function name, an integer); a name with dots (valid for Kubernetes objects) is
 * matched as a whole instead of breaking the four-part split, which would otherwise never
 * recognise its entries and add them again on every reconcile.
 */
export function isPackageVariantFunction(name: unknown, pvName: string): boolean {
  if (typeof name !== "string") return false;
  const prefix = `${FUNCTION_NAME_PREFIX}.${pvName}.`;
  if (!name.startsWith(prefix)) return false;
  const rest = name.slice(prefix.length).split(".");
  return rest.length === 2 && /^[+-]?\d+$/.test(rest[1]);
}

function functionNode(fn: KptFunction, name: string): unknown {
  const source: Record<string, unknown> = { ...fn, name };
  const out: Record<string, unknown> = {};
  for (const field of FUNCTION_FIELDS) {
    const value = source[field];
    if (value !== undefined && value !== null && value !== "") out[field] = value;
  }
  return toNode(out);
}

function pipelineMap(kptfile: Kptfile): YAMLMap | undefined {
  const node = getField(kptfile.root, "pipeline");
  if (isMissingOrNull(node)) return undefined;
  if (!isMap(node)) throw new MutationError(`${KPTFILE}: pipeline must be a map`);
  return node;
}

function stageItems(pipeline: YAMLMap | undefined, stage: string): unknown[] {
  const node = pipeline ? getField(pipeline, stage) : undefined;
  if (isMissingOrNull(node)) return [];
  if (!isSeq(node)) throw new MutationError(`${KPTFILE}: pipeline.${stage} must be a list`);
  return node.items;
}

/** Edits the Kptfile document in place. */
function editPipeline(kptfile: Kptfile, pvName: string, pipeline: Pipeline | undefined): void {
  const existing = pipelineMap(kptfile);
  const target = existing ?? new YAMLMap();
  for (const stage of STAGES) {
    const kept = stageItems(existing, stage).filter(
      item => !isPackageVariantFunction((plain(item) as { name?: unknown } | null)?.name, pvName),
    );
    const ours = (pipeline?.[stage] ?? []).map((fn, i) =>
      functionNode(fn, packageVariantFunctionName(pvName, fn.name, i)),
    );
    const items = [...ours, ...kept];
    // Empty lists are dropped rather than left as `mutators: []`, as the reference does.
    if (items.length === 0) {
      deleteField(target, stage);
      continue;
    }
    const current = getField(target, stage);
    const seq = isSeq(current) ? current : new YAMLSeq();
    seq.items = items;
    setField(target, stage, seq, STAGES);
  }
  if (target.items.length === 0) setSection(kptfile, "pipeline", undefined);
  else if (!existing) setSection(kptfile, "pipeline", target);
}

/**
 * Returns the package with this PackageVariant's functions at the front of the Kptfile's
 * mutators and validators, in spec order. Other entries (the upstream's, other
 * PackageVariants') keep their order and comments. Runs even without spec.pipeline, so
 * functions removed from the spec leave the Kptfile. An unchanged Kptfile keeps its text.
 */
export function applyPipeline(
  files: PackageFiles,
  pvName: string,
  pipeline: Pipeline | undefined,
): PackageFiles {
  return editKptfile(files, kptfile => editPipeline(kptfile, pvName, pipeline));
}
