import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import pkg from "../../../package.json";
import {
  DEFAULT_POD_RUNTIME_LIMITS,
  FUNCTION_POD_LABELS,
  podTemplate,
  WRAPPER_PORT,
} from "../../../lib/fn/pod";

// manifests/function-pods.yaml, which an administrator applies for the Pod runtime: Pepr's
// scoped RBAC is one ClusterRole, so the right to make Pods is a Role of its own, in the
// function namespace only. The deploy suite applies it and runs function Pods under it.

const objects = parseAllDocuments(
  readFileSync(join(__dirname, "../../../manifests/function-pods.yaml"), "utf8"),
).map(d => d.toJSON());
const byKind = (kind: string) => objects.filter(o => o.kind === kind);

describe("manifests/function-pods.yaml", () => {
  it("lets the module's ServiceAccount manage Pods in the function namespace, and nothing else", () => {
    const [role] = byKind("Role");
    expect(byKind("Role")).toHaveLength(1);
    expect(byKind("ClusterRole")).toEqual([]);
    expect(role.metadata.namespace).toBe("porch-fn-system");
    expect(role.rules).toEqual([
      { apiGroups: [""], resources: ["pods"], verbs: ["create", "delete", "get", "list"] },
    ]);
    const [binding] = byKind("RoleBinding");
    expect(binding.metadata.namespace).toBe("porch-fn-system");
    expect(binding.roleRef).toEqual({
      apiGroup: "rbac.authorization.k8s.io",
      kind: "Role",
      name: role.metadata.name,
    });
    // The account `npx pepr build` generates for this module (uuid porch-pepr).
    expect(binding.subjects).toEqual([
      { kind: "ServiceAccount", name: `pepr-${pkg.pepr.uuid}`, namespace: "pepr-system" },
    ]);
  });

  it("gives the module no Pod rights cluster-wide", () => {
    const rules = pkg.pepr.rbac as { resources: string[] }[];
    expect(rules.filter(r => r.resources.includes("pods"))).toEqual([]);
  });

  it("gives function Pods an account with no token mounted, in a namespace enforcing restricted", () => {
    const [account] = byKind("ServiceAccount");
    expect(account.automountServiceAccountToken).toBe(false);
    const [namespace] = byKind("Namespace");
    expect(namespace.metadata.labels["pod-security.kubernetes.io/enforce"]).toBe("restricted");
  });

  it("lets only the operator reach the wrapper, and function Pods reach nothing", () => {
    const [policy] = byKind("NetworkPolicy");
    const pod = podTemplate(
      { image: "fn:1", entrypoint: ["/f"], resources: {}, timeoutMs: 1, idleMs: 0 },
      { namespace: "porch-fn-system", serviceAccountName: "porch-fn-runner", wrapperImage: "w:1" },
      DEFAULT_POD_RUNTIME_LIMITS,
    ).build("p", "t");
    expect(policy.spec.podSelector.matchLabels).toEqual(FUNCTION_POD_LABELS);
    for (const [key, value] of Object.entries(FUNCTION_POD_LABELS))
      expect(pod.metadata?.labels?.[key]).toBe(value);
    expect(policy.spec.policyTypes).toEqual(["Ingress", "Egress"]);
    expect(policy.spec.egress).toEqual([]);
    expect(policy.spec.ingress).toEqual([
      {
        from: [
          { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "pepr-system" } } },
        ],
        ports: [{ port: WRAPPER_PORT, protocol: "TCP" }],
      },
    ]);
  });
});
