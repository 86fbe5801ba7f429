// The function Pod: an init container copies the wrapper (hack/functions/wrapper) from the
// wrapper image into an emptyDir; the function container runs the function image with the
// wrapper as its process and the image's entrypoint as the wrapper's arguments. The Pod may
// do nothing but compute: no API token, no host namespaces, no root, no privilege, no
// writable root file system, the runtime's default seccomp profile.
import { createHash } from "node:crypto";
import type { Container, Pod, SecurityContext } from "../../cluster/kinds";
import type { PodFunction, PodResourceList, PodRuntimeSettings } from "../pod-function";
import { pulledImage, splitReference } from "../catalog/image-reference";
import type { PodRuntimeLimits } from "./limits";

/** The wrapper's port in the function container. */
export const WRAPPER_PORT = 9446;
/** Where the init container puts the wrapper; the function container mounts it read-only. */
export const WRAPPER_DIR = "/porch-pepr";
export const WRAPPER_BINARY = `${WRAPPER_DIR}/function-wrapper`;
/** The variable that carries the Pod's bearer token to the wrapper (hack/functions/wrapper). */
export const TOKEN_ENV = "PORCH_PEPR_FN_TOKEN";
/** Function Pods run as this uid and gid (the distroless "nonroot" user). */
export const FUNCTION_UID = 65532;
export const FUNCTION_CONTAINER = "function";

/** Labels that mark a Pod as a function Pod of this operator. */
export const FUNCTION_POD_LABELS = {
  "app.kubernetes.io/managed-by": "porch-pepr",
  "app.kubernetes.io/component": "krm-function",
} as const;
/** A hash of the image: label values hold 63 characters, image references more. */
export const IMAGE_HASH_LABEL = "fn.porch.kpt.dev/image-hash";
/** A hash of everything the Pod is made from: one warm Pod per value. */
export const TEMPLATE_HASH_LABEL = "fn.porch.kpt.dev/template-hash";
/** The image itself, for people (annotations have no length limit worth the name). */
export const IMAGE_ANNOTATION = "fn.porch.kpt.dev/image";
/** The function's idleMs, so a Pod adopted after a restart expires as its function says. */
export const IDLE_ANNOTATION = "fn.porch.kpt.dev/idle-ms";

/** Bump when the Pod's shape or the wrapper's arguments change: Pods of the old shape are replaced. */
const TEMPLATE_VERSION = "1";

const hash = (value: string, length: number) =>
  createHash("sha256").update(value).digest("hex").slice(0, length);

export const imageHash = (image: string): string => hash(image, 16);

const MAX_IMAGE_LENGTH = 512;
const MAX_ENTRYPOINT_ARGS = 64;
const MAX_ARG_LENGTH = 4096;
const MAX_TIMEOUT_MS = 60 * 60_000;
const MAX_IDLE_MS = 24 * 60 * 60_000;
// Registry host[:port], path, :tag and @digest: the characters image references use.
const IMAGE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._\-/:@+]*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUANTITY = /^[0-9]+(\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/;

function imageProblem(field: string, image: unknown): string | undefined {
  if (typeof image !== "string" || image === "") return `${field} is required`;
  if (image.length > MAX_IMAGE_LENGTH) return `${field} is longer than ${MAX_IMAGE_LENGTH}`;
  if (!IMAGE_PATTERN.test(image))
    return `${field} ${JSON.stringify(image)} is not an image reference`;
  return undefined;
}

function integerProblem(field: string, value: unknown, min: number, max: number) {
  return typeof value === "number" && Number.isInteger(value) && value >= min && value <= max
    ? undefined
    : `${field} must be an integer from ${min} to ${max}`;
}

function resourceProblems(resources: PodFunction["resources"] | undefined): string[] {
  const problems: string[] = [];
  for (const kind of ["requests", "limits"] as const) {
    for (const [name, value] of Object.entries(resources?.[kind] ?? {})) {
      if (name !== "cpu" && name !== "memory")
        problems.push(`resources.${kind}: only cpu and memory, not ${JSON.stringify(name)}`);
      else if (typeof value !== "string" || !QUANTITY.test(value))
        problems.push(`resources.${kind}.${name} ${JSON.stringify(value)} is not a quantity`);
    }
  }
  return problems;
}

/**
 * What is wrong with a catalog entry or the settings, every problem at once. The catalog is the
 * administrator's, but a tenant's pipeline chooses which entry runs: nothing reaches a
 * manifest unchecked.
 */
export function podFunctionProblems(fn: PodFunction, settings: PodRuntimeSettings): string[] {
  const entry = Array.isArray(fn.entrypoint) ? fn.entrypoint : [];
  const problems = [
    imageProblem("image", fn.image),
    entry.length === 0 || entry.length > MAX_ENTRYPOINT_ARGS
      ? `entrypoint must have 1 to ${MAX_ENTRYPOINT_ARGS} elements`
      : undefined,
    entry.some(
      a => typeof a !== "string" || a === "" || a.length > MAX_ARG_LENGTH || a.includes("\0"),
    )
      ? `entrypoint elements must be non-empty strings of at most ${MAX_ARG_LENGTH} characters`
      : undefined,
    integerProblem("timeoutMs", fn.timeoutMs, 1, MAX_TIMEOUT_MS),
    integerProblem("idleMs", fn.idleMs, 0, MAX_IDLE_MS),
    ...resourceProblems(fn.resources),
    typeof settings.namespace === "string" &&
    settings.namespace.length <= 63 &&
    DNS_LABEL.test(settings.namespace)
      ? undefined
      : `namespace ${JSON.stringify(settings.namespace)} is not a namespace name`,
    typeof settings.serviceAccountName === "string" &&
    settings.serviceAccountName.length <= 253 &&
    DNS_SUBDOMAIN.test(settings.serviceAccountName)
      ? undefined
      : `serviceAccountName ${JSON.stringify(settings.serviceAccountName)} is not a ServiceAccount name`,
    imageProblem("wrapperImage", settings.wrapperImage),
  ];
  return problems.filter((p): p is string => p !== undefined);
}

const quantities = (list: PodResourceList | undefined): Record<string, string> | undefined => {
  const entries = Object.entries(list ?? {}).filter(([, v]) => v !== undefined);
  return entries.length > 0
    ? Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)))
    : undefined;
};

/** The wrapper's command line: its limits as flags, then the image's entrypoint. */
function wrapperCommand(fn: PodFunction, limits: PodRuntimeLimits): string[] {
  return [
    WRAPPER_BINARY,
    "serve",
    `--port=${WRAPPER_PORT}`,
    `--timeout=${fn.timeoutMs}ms`,
    `--max-stdout-bytes=${limits.maxStdoutBytes}`,
    `--max-stderr-bytes=${limits.maxStderrBytes}`,
    `--max-request-bytes=${limits.maxRequestBytes}`,
    `--max-runs=${limits.maxRunsPerPod}`,
    "--",
    ...fn.entrypoint,
  ];
}

/** What a function's Pods are made from; `key` is its hash, `build` the Pod for one name and token. */
export interface PodTemplate {
  key: string;
  fn: PodFunction;
  settings: PodRuntimeSettings;
  build(name: string, token: string): Pod;
  /** A fresh Pod name with `suffix` (random, from the caller). */
  name(suffix: string): string;
}

const RESTRICTED: SecurityContext = {
  runAsNonRoot: true,
  runAsUser: FUNCTION_UID,
  runAsGroup: FUNCTION_UID,
  readOnlyRootFilesystem: true,
  allowPrivilegeEscalation: false,
  privileged: false,
  capabilities: { drop: ["ALL"] },
  seccompProfile: { type: "RuntimeDefault" },
};

/** The DNS-label-safe function name of an image, for Pod names people can read. */
function slug(image: string): string {
  const path = splitReference(image).name;
  const name = path
    .slice(path.lastIndexOf("/") + 1)
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 30)
    .replace(/-+$/, "");
  return name || "function";
}

/**
 * The Pod template of one catalog entry under the settings and limits. Check the inputs with
 * podFunctionProblems first.
 */
export function podTemplate(
  fn: PodFunction,
  settings: PodRuntimeSettings,
  limits: PodRuntimeLimits,
): PodTemplate {
  const resources = {
    requests: quantities(fn.resources?.requests),
    limits: quantities(fn.resources?.limits),
  };
  const command = wrapperCommand(fn, limits);
  // Keyed by what is pulled: respelling one image's tag beside its digest makes no new Pod.
  const image = pulledImage(fn.image);
  const key = hash(
    JSON.stringify([
      TEMPLATE_VERSION,
      image,
      command,
      resources,
      settings.serviceAccountName,
      settings.wrapperImage,
    ]),
    16,
  );
  const function_: Container = {
    name: FUNCTION_CONTAINER,
    image,
    imagePullPolicy: "IfNotPresent",
    command,
    ports: [{ name: "wrapper", containerPort: WRAPPER_PORT, protocol: "TCP" }],
    readinessProbe: {
      httpGet: { path: "/healthz", port: WRAPPER_PORT },
      periodSeconds: 1,
      timeoutSeconds: 1,
      failureThreshold: 3,
    },
    ...((resources.requests || resources.limits) && {
      resources: {
        ...(resources.requests && { requests: resources.requests }),
        ...(resources.limits && { limits: resources.limits }),
      },
    }),
    securityContext: RESTRICTED,
    volumeMounts: [
      { name: "wrapper", mountPath: WRAPPER_DIR, readOnly: true },
      { name: "tmp", mountPath: "/tmp" },
    ],
  };
  return {
    key,
    fn,
    settings,
    name: suffix => `fn-${slug(fn.image)}-${key.slice(0, 10)}-${suffix}`,
    build: (name, token) => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name,
        namespace: settings.namespace,
        labels: {
          ...FUNCTION_POD_LABELS,
          [IMAGE_HASH_LABEL]: imageHash(fn.image),
          [TEMPLATE_HASH_LABEL]: key,
        },
        annotations: { [IMAGE_ANNOTATION]: fn.image, [IDLE_ANNOTATION]: String(fn.idleMs) },
      },
      spec: {
        serviceAccountName: settings.serviceAccountName,
        automountServiceAccountToken: false,
        enableServiceLinks: false,
        hostNetwork: false,
        hostPID: false,
        hostIPC: false,
        // A wrapper that exits fails the Pod; the pool replaces it (no restart in place).
        restartPolicy: "Never",
        terminationGracePeriodSeconds: 5,
        securityContext: {
          runAsNonRoot: true,
          runAsUser: FUNCTION_UID,
          runAsGroup: FUNCTION_UID,
          seccompProfile: { type: "RuntimeDefault" },
        },
        initContainers: [
          {
            name: "install-wrapper",
            image: settings.wrapperImage,
            imagePullPolicy: "IfNotPresent",
            args: ["install", WRAPPER_DIR],
            resources: {
              requests: { cpu: "10m", memory: "16Mi" },
              limits: { cpu: "100m", memory: "32Mi" },
            },
            securityContext: RESTRICTED,
            volumeMounts: [{ name: "wrapper", mountPath: WRAPPER_DIR }],
          },
        ],
        containers: [{ ...function_, env: [{ name: TOKEN_ENV, value: token }] }],
        volumes: [
          { name: "wrapper", emptyDir: { sizeLimit: "64Mi" } },
          { name: "tmp", emptyDir: { sizeLimit: "256Mi" } },
        ],
      },
    }),
  };
}
