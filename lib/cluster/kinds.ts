import type { KubeObject, ResourceKind } from "./port";

/** The built-in kinds the operator reads or writes, typed as far as it reads them. */

export interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

export interface Namespace extends KubeObject {
  status?: { phase?: string };
}

export interface CoreEvent extends KubeObject {
  involvedObject: {
    apiVersion?: string;
    kind?: string;
    name?: string;
    namespace?: string;
    uid?: string;
  };
  type: string;
  reason: string;
  message: string;
  firstTimestamp?: string;
  lastTimestamp?: string;
  count?: number;
  source?: { component?: string };
  reportingComponent?: string;
  reportingInstance?: string;
}

export interface CustomResourceDefinition extends KubeObject {
  spec?: unknown;
  status?: { conditions?: { type: string; status: string }[] };
}

export interface Review<Spec, Status> extends KubeObject {
  spec?: Spec;
  status?: Status;
}

export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export type SelfSubjectReview = Review<never, { userInfo?: UserInfo }>;

export type SubjectAccessReview = Review<
  {
    user?: string;
    uid?: string;
    groups?: string[];
    extra?: Record<string, string[]>;
    resourceAttributes?: {
      verb: string;
      group: string;
      resource: string;
      subresource?: string;
      namespace: string;
      /** Absent: every object of the resource in the namespace. */
      name?: string;
    };
  },
  { allowed?: boolean; denied?: boolean; reason?: string }
>;

const core = (kind: string, plural: string, namespaced: boolean) => ({
  group: "",
  version: "v1",
  kind,
  plural,
  namespaced,
});

export const SecretKind: ResourceKind<Secret> = core("Secret", "secrets", true);
export const ConfigMapKind: ResourceKind<ConfigMap> = core("ConfigMap", "configmaps", true);
export const NamespaceKind: ResourceKind<Namespace> = core("Namespace", "namespaces", false);
export const EventKind: ResourceKind<CoreEvent> = core("Event", "events", true);
export const CustomResourceDefinitionKind: ResourceKind<CustomResourceDefinition> = {
  group: "apiextensions.k8s.io",
  version: "v1",
  kind: "CustomResourceDefinition",
  plural: "customresourcedefinitions",
  namespaced: false,
};
export const SelfSubjectReviewKind: ResourceKind<SelfSubjectReview> = {
  group: "authentication.k8s.io",
  version: "v1",
  kind: "SelfSubjectReview",
  plural: "selfsubjectreviews",
  namespaced: false,
};
export const SubjectAccessReviewKind: ResourceKind<SubjectAccessReview> = {
  group: "authorization.k8s.io",
  version: "v1",
  kind: "SubjectAccessReview",
  plural: "subjectaccessreviews",
  namespaced: false,
};

/** The parts of a Pod the function runtime writes and reads (lib/fn/pod). */
export interface Pod extends KubeObject {
  spec?: PodSpec;
  status?: PodStatus;
}

export interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  privileged?: boolean;
  capabilities?: { drop?: string[]; add?: string[] };
  seccompProfile?: { type: string };
}

export interface Container {
  name: string;
  image: string;
  imagePullPolicy?: string;
  command?: string[];
  args?: string[];
  env?: { name: string; value?: string }[];
  ports?: { name?: string; containerPort: number; protocol?: string }[];
  readinessProbe?: {
    httpGet?: { path: string; port: number };
    periodSeconds?: number;
    timeoutSeconds?: number;
    failureThreshold?: number;
  };
  resources?: {
    requests?: Record<string, string>;
    limits?: Record<string, string>;
  };
  securityContext?: SecurityContext;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

export interface PodSpec {
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  enableServiceLinks?: boolean;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  restartPolicy?: string;
  terminationGracePeriodSeconds?: number;
  securityContext?: Omit<SecurityContext, "readOnlyRootFilesystem" | "capabilities"> & {
    fsGroup?: number;
  };
  initContainers?: Container[];
  containers: Container[];
  volumes?: { name: string; emptyDir?: { medium?: string; sizeLimit?: string } }[];
}

export interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: { exitCode: number; reason?: string; message?: string };
}

export interface ContainerStatus {
  name: string;
  ready?: boolean;
  state?: ContainerState;
}

export interface PodStatus {
  phase?: string;
  reason?: string;
  message?: string;
  podIP?: string;
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
  initContainerStatuses?: ContainerStatus[];
  containerStatuses?: ContainerStatus[];
}

export const PodKind: ResourceKind<Pod> = core("Pod", "pods", true);
