import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { computeDesiredSet } from "../capabilities/package-variant-set/desired";
import { listVariants } from "../capabilities/package-variant-set/variants";
import { operator } from "../capabilities/operator";
import { PackageVariantSet, PackageVariantSetKind } from "../crd-types";
import { planSet, specDiff } from "../lib/package-variant-set";

/**
 * `npm run preview -- <packagevariantset.yaml> [-n namespace]`: what the set would create, update
 * (with a diff of each spec) and delete in the current cluster, computed exactly as the
 * controller computes it, with nothing written (argo-cd#10895 is what users wanted for this).
 */
function parseArgs(argv: string[]): { file: string; namespace: string } {
  const file = argv.find(a => !a.startsWith("-") && argv[argv.indexOf(a) - 1] !== "-n");
  const n = argv.indexOf("-n");
  if (!file) throw new Error("usage: npm run preview -- <packagevariantset.yaml> [-n namespace]");
  return { file, namespace: n >= 0 ? argv[n + 1] : "" };
}

async function liveSet(set: PackageVariantSet): Promise<PackageVariantSet> {
  const live = await operator.cluster
    .get(PackageVariantSetKind, {
      namespace: set.metadata?.namespace,
      name: set.metadata?.name ?? "",
    })
    .catch(() => undefined); // a set not in the cluster yet (or not nameable) is previewed as new
  if (!live) return set;
  // The file's spec, with the live object's identity: its PackageVariants carry the UID.
  return { ...set, metadata: { ...set.metadata, uid: live.metadata?.uid } };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const fromFile = parse(readFileSync(args.file, "utf8")) as PackageVariantSet;
  const namespace = args.namespace || fromFile.metadata?.namespace || "default";
  const set = await liveSet({ ...fromFile, metadata: { ...fromFile.metadata, namespace } });
  const name = `${namespace}/${set.metadata?.name}`;
  const { outcome, plannable, complete } = await computeDesiredSet(operator, set);
  const out: string[] = [
    `PackageVariantSet ${name}${set.metadata?.uid ? "" : " (not in the cluster yet)"}`,
  ];
  if (outcome.stalled)
    out.push(`  stalled (${outcome.stalled.reason}): ${outcome.stalled.message}`);
  if (!plannable) return void process.stdout.write(`${out.join("\n")}\n  nothing would change\n`);
  const plan = planSet(
    set.metadata?.name ?? "",
    outcome.desired,
    set.metadata?.uid ? await listVariants(operator, set) : [],
    complete,
  );
  const downstream = (spec?: { downstream?: { repo?: string; package?: string } }) =>
    `${spec?.downstream?.repo}/${spec?.downstream?.package}`;
  for (const d of plan.create) out.push(`  create    ${d.name}  ${downstream(d.spec)}`);
  for (const u of plan.update) {
    out.push(`  update    ${u.existing.metadata?.name}  ${downstream(u.desired.spec)}`);
    for (const line of specDiff(u.existing.spec, u.desired.spec)) out.push(`              ${line}`);
  }
  for (const e of plan.delete) out.push(`  delete    ${e.metadata?.name}  ${downstream(e.spec)}`);
  for (const f of outcome.failedTargets)
    out.push(`  failed    ${f.repository}/${f.package}: ${f.message}`);
  if (!complete) out.push("  (the set is incomplete, so nothing would be deleted)");
  out.push(
    `  ${plan.create.length} to create, ${plan.update.length} to update, ${plan.delete.length} to delete, ${plan.unchanged.length} unchanged`,
  );
  process.stdout.write(`${out.join("\n")}\n`);
}

main().catch(error => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
