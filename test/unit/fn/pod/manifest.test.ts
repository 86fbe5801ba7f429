import type { Container } from "../../../../lib/cluster/kinds";
import {
  DEFAULT_POD_RUNTIME_LIMITS,
  IMAGE_HASH_LABEL,
  podFunctionProblems,
  podTemplate,
  TEMPLATE_HASH_LABEL,
  WRAPPER_PORT,
} from "../../../../lib/fn/pod";
import type { PodFunction, PodRuntimeSettings } from "../../../../lib/fn/pod-function";

const fn: PodFunction = {
  image: "ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2.0",
  entrypoint: ["/usr/local/bin/function"],
  resources: { requests: { cpu: "100m", memory: "64Mi" }, limits: { memory: "256Mi" } },
  timeoutMs: 30_000,
  idleMs: 600_000,
};
const settings: PodRuntimeSettings = {
  namespace: "porch-fn-system",
  serviceAccountName: "porch-fn-runner",
  wrapperImage: "localhost/porch-pepr/function-wrapper:0123456789ab",
};
const TOKEN = "f".repeat(64);
const template = podTemplate(fn, settings, DEFAULT_POD_RUNTIME_LIMITS);
const pod = template.build(template.name("abcde"), TOKEN);
const spec = pod.spec!;
const [init] = spec.initContainers!;
const [main] = spec.containers;

const restricted = (container: Container) => {
  expect(container.securityContext).toEqual({
    runAsNonRoot: true,
    runAsUser: 65532,
    runAsGroup: 65532,
    readOnlyRootFilesystem: true,
    allowPrivilegeEscalation: false,
    privileged: false,
    capabilities: { drop: ["ALL"] },
    seccompProfile: { type: "RuntimeDefault" },
  });
};

describe("the function Pod", () => {
  it("has no API access, no host namespaces and no service links", () => {
    expect(spec.serviceAccountName).toBe("porch-fn-runner");
    expect(spec.automountServiceAccountToken).toBe(false);
    expect(spec.enableServiceLinks).toBe(false);
    expect([spec.hostNetwork, spec.hostPID, spec.hostIPC]).toEqual([false, false, false]);
    expect(spec.restartPolicy).toBe("Never");
  });

  it("runs both containers non-root, read-only, unprivileged, with no capabilities and RuntimeDefault seccomp", () => {
    expect(spec.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 65532,
      runAsGroup: 65532,
      seccompProfile: { type: "RuntimeDefault" },
    });
    restricted(init);
    restricted(main);
  });

  it("copies the wrapper in with an init container and runs the function image behind it", () => {
    expect(init.image).toBe(settings.wrapperImage);
    expect(init.args).toEqual(["install", "/porch-pepr"]);
    expect(init.volumeMounts).toEqual([{ name: "wrapper", mountPath: "/porch-pepr" }]);
    expect(main.image).toBe(fn.image);
    expect(main.command).toEqual([
      "/porch-pepr/function-wrapper",
      "serve",
      `--port=${WRAPPER_PORT}`,
      "--timeout=30000ms",
      "--max-stdout-bytes=33554432",
      "--max-stderr-bytes=65536",
      "--max-request-bytes=33554432",
      "--max-runs=4",
      "--",
      "/usr/local/bin/function",
    ]);
    expect(main.volumeMounts).toEqual([
      { name: "wrapper", mountPath: "/porch-pepr", readOnly: true },
      { name: "tmp", mountPath: "/tmp" },
    ]);
    expect(spec.volumes?.map(v => [v.name, Object.keys(v)])).toEqual([
      ["wrapper", ["name", "emptyDir"]],
      ["tmp", ["name", "emptyDir"]],
    ]);
    for (const c of [init, main]) expect(c.imagePullPolicy).toBe("IfNotPresent");
  });

  it("gives the wrapper its token, and nothing else, in the environment; readiness is /healthz", () => {
    expect(main.env).toEqual([{ name: "PORCH_PEPR_FN_TOKEN", value: TOKEN }]);
    expect(init.env).toBeUndefined();
    expect(main.readinessProbe?.httpGet).toEqual({ path: "/healthz", port: WRAPPER_PORT });
  });

  it("takes the function's resources", () => {
    expect(main.resources).toEqual({
      requests: { cpu: "100m", memory: "64Mi" },
      limits: { memory: "256Mi" },
    });
  });

  it("is labelled as ours with hashes, never the raw image; the image is an annotation", () => {
    const labels = pod.metadata!.labels!;
    expect(labels["app.kubernetes.io/managed-by"]).toBe("porch-pepr");
    expect(labels["app.kubernetes.io/component"]).toBe("krm-function");
    expect(labels[IMAGE_HASH_LABEL]).toMatch(/^[0-9a-f]{16}$/);
    expect(labels[TEMPLATE_HASH_LABEL]).toBe(template.key);
    for (const value of Object.values(labels)) expect(value.length).toBeLessThanOrEqual(63);
    expect(pod.metadata!.annotations).toEqual({
      "fn.porch.kpt.dev/image": fn.image,
      "fn.porch.kpt.dev/idle-ms": "600000",
    });
    expect(pod.metadata!.namespace).toBe("porch-fn-system");
  });

  it("is named after the function, its template and a random suffix, within a DNS label", () => {
    expect(pod.metadata!.name).toBe(`fn-set-labels-${template.key.slice(0, 10)}-abcde`);
    const long = podTemplate(
      { ...fn, image: `example.com/${"Very_Long.Name".repeat(10)}:v1` },
      settings,
      DEFAULT_POD_RUNTIME_LIMITS,
    ).name("abcde");
    expect(long).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(long.length).toBeLessThanOrEqual(63);
  });

  it("has one template per image, entrypoint, resources, limits and settings, but not per idleMs", () => {
    const key = (f: PodFunction, s = settings) => podTemplate(f, s, DEFAULT_POD_RUNTIME_LIMITS).key;
    expect(key({ ...fn, idleMs: 1 })).toBe(template.key);
    expect(
      new Set([
        template.key,
        key({ ...fn, image: `${fn.image}-other` }),
        key({ ...fn, entrypoint: ["/bin/other"] }),
        key({ ...fn, timeoutMs: 1 }),
        key({ ...fn, resources: {} }),
        key(fn, { ...settings, wrapperImage: "other:1" }),
        key(fn, { ...settings, serviceAccountName: "other" }),
      ]).size,
    ).toBe(7);
  });

  it("has one template per pulled image: a tag beside a digest is not part of it", () => {
    const digest = `sha256:${"a".repeat(64)}`;
    const at = (image: string) =>
      podTemplate({ ...fn, image }, settings, DEFAULT_POD_RUNTIME_LIMITS);
    const pinned = at(`example.com/fns/x:1.2.0@${digest}`);
    expect(at(`example.com/fns/x:1.2.49@${digest}`).key).toBe(pinned.key);
    expect(at(`example.com/fns/x@${digest}`).key).toBe(pinned.key);
    const container = pinned.build("p", "t").spec?.containers?.find(c => c.name === "function");
    expect(container?.image).toBe(`example.com/fns/x@${digest}`);
    expect(at(`example.com/fns/x@sha256:${"b".repeat(64)}`).key).not.toBe(pinned.key);
    expect(at("example.com/fns/x:1.2.0").key).not.toBe(at("example.com/fns/x:1.2.1").key);
  });
});

describe("podFunctionProblems", () => {
  it("accepts a good catalog entry", () => {
    expect(podFunctionProblems(fn, settings)).toEqual([]);
  });

  it("names every problem of a hostile entry at once", () => {
    const problems = podFunctionProblems(
      {
        image: "evil image; rm -rf /",
        entrypoint: [],
        resources: { limits: { memory: "lots", gpu: "1" } as never },
        timeoutMs: -1,
        idleMs: 1.5,
      },
      { namespace: "Not_A_Namespace", serviceAccountName: "", wrapperImage: "" },
    );
    expect(problems).toEqual([
      'image "evil image; rm -rf /" is not an image reference',
      "entrypoint must have 1 to 64 elements",
      "timeoutMs must be an integer from 1 to 3600000",
      "idleMs must be an integer from 0 to 86400000",
      'resources.limits.memory "lots" is not a quantity',
      'resources.limits: only cpu and memory, not "gpu"',
      'namespace "Not_A_Namespace" is not a namespace name',
      'serviceAccountName "" is not a ServiceAccount name',
      "wrapperImage is required",
    ]);
  });

  it("refuses entrypoint arguments with NUL bytes and images too long to be real", () => {
    expect(podFunctionProblems({ ...fn, entrypoint: ["/bin/fn\0x"] }, settings)).toEqual([
      "entrypoint elements must be non-empty strings of at most 4096 characters",
    ]);
    expect(podFunctionProblems({ ...fn, image: `a${"b".repeat(600)}` }, settings)).toEqual([
      "image is longer than 512",
    ]);
  });
});
