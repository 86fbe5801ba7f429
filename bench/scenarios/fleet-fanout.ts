// The fleet scenario: the fan-out users run with Nephio. Every variant sets a package context
// key, prepends a mutator (set-labels, one of the built-in functions) and injects a ConfigMap
// of its namespace into the package's injection point, so a variant's draft carries mutations
// on top of its clone. Timed like the plain fan-out (fanout.ts), at the same N, in an
// environment of its own; fleetFanOutRatio divides the two.
import type { DemoPackage } from "../../hack/demo/packages";
import type { BenchContext } from "./context";
import { fanOut, fleetSet, variantDrafts, type StepResult } from "./fanout";
import { upstreamPackage, type Fleet } from "./fleet";

/** The ConfigMap every variant injects (in the set's namespace, readable by default). */
export const INJECTED = "fleet-defaults";
const INJECTED_DATA = { tier: "gold", owner: "bench-fleet" };
const CONTEXT_KEY = "region";
const LABEL = "bench.porch.kpt.dev/fleet";

/** An injection point: a ConfigMap the variant must fill (kpt.dev/config-injection). */
export const INJECTION_POINT = `apiVersion: v1
kind: ConfigMap
metadata:
  name: tenant-defaults
  annotations:
    config.kubernetes.io/local-config: "true"
    kpt.dev/config-injection: required
data:
  tier: standard
`;

/** base-ns with the injection point. */
export function injectableUpstream(upTo: number): DemoPackage {
  const base = upstreamPackage(upTo);
  return {
    ...base,
    revisions: base.revisions.map(r => ({
      ...r,
      files: { ...r.files, "tenant-defaults.yaml": INJECTION_POINT },
    })),
  };
}

/** The plain fan-out's set with the three mutations in its template. */
export function fleetVariantSet(fleet: Fleet) {
  const set = fleetSet(fleet, 1);
  const [target] = set.spec.targets;
  return {
    ...set,
    spec: {
      ...set.spec,
      targets: [
        {
          ...target,
          template: {
            ...target.template,
            packageContext: { data: { [CONTEXT_KEY]: "eu-west" } },
            pipeline: {
              mutators: [
                {
                  name: "fleet-labels",
                  image: "gcr.io/kpt-fn/set-labels:v0.2.0",
                  configMap: { [LABEL]: "bench" },
                },
              ],
            },
            injectors: [{ kind: "ConfigMap", name: INJECTED }],
          },
        },
      ],
    },
  };
}

/**
 * What every draft must show once rendered: the context key, the mutator's label and the
 * injected data (with the annotation naming the object). Returns how many drafts lack any.
 */
export function missingMutations(files: Record<string, string>[]): number {
  const marks = [
    `${CONTEXT_KEY}: eu-west`,
    `${LABEL}: bench`,
    `kpt.dev/injected-resource-name: ${INJECTED}`,
    `owner: ${INJECTED_DATA.owner}`,
  ];
  return files.filter(f => {
    const all = Object.values(f).join("\n");
    return !marks.every(m => all.includes(m));
  }).length;
}

export async function fleetFanOut(ctx: BenchContext, fleet: Fleet): Promise<StepResult> {
  await ctx.api.create(`/api/v1/namespaces/${fleet.ns}/configmaps`, {
    metadata: { name: INJECTED },
    data: INJECTED_DATA,
  });
  const result = await fanOut(ctx, fleet, fleetVariantSet(fleet));
  if (result.error) return result;
  const files = variantDrafts(fleet, "cloneFrom").map(
    pr =>
      (fleet.resources.items.get(pr.metadata.name)?.spec?.resources ?? {}) as Record<
        string,
        string
      >,
  );
  const missing = missingMutations(files);
  if (files.length !== fleet.n || missing > 0)
    return {
      ...result,
      error: `${missing} of ${files.length} drafts lack the context key, the label or the injected data`,
    };
  return result;
}
