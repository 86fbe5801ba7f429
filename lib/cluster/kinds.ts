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
      namespace: string;
      name: string;
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
