// Whether a Kubernetes kind is namespace-scoped, for the built-in API types (the table kpt's
// function SDK and kustomize precompute from the Kubernetes OpenAPI). Custom kinds are
// unknown here; callers decide (e.g. from a CRD in the package or `metadata.namespace`).

const CLUSTER_SCOPED: ReadonlySet<string> = new Set([
  "/Namespace",
  "/Node",
  "/PersistentVolume",
  "/ComponentStatus",
  "admissionregistration.k8s.io/MutatingWebhookConfiguration",
  "admissionregistration.k8s.io/ValidatingWebhookConfiguration",
  "admissionregistration.k8s.io/ValidatingAdmissionPolicy",
  "admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding",
  "admissionregistration.k8s.io/MutatingAdmissionPolicy",
  "admissionregistration.k8s.io/MutatingAdmissionPolicyBinding",
  "apiextensions.k8s.io/CustomResourceDefinition",
  "apiregistration.k8s.io/APIService",
  "authentication.k8s.io/TokenReview",
  "authentication.k8s.io/SelfSubjectReview",
  "authorization.k8s.io/SelfSubjectAccessReview",
  "authorization.k8s.io/SelfSubjectRulesReview",
  "authorization.k8s.io/SubjectAccessReview",
  "certificates.k8s.io/CertificateSigningRequest",
  "certificates.k8s.io/ClusterTrustBundle",
  "flowcontrol.apiserver.k8s.io/FlowSchema",
  "flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration",
  "internal.apiserver.k8s.io/StorageVersion",
  "networking.k8s.io/IngressClass",
  "networking.k8s.io/IPAddress",
  "networking.k8s.io/ServiceCIDR",
  "node.k8s.io/RuntimeClass",
  "policy/PodSecurityPolicy",
  "rbac.authorization.k8s.io/ClusterRole",
  "rbac.authorization.k8s.io/ClusterRoleBinding",
  "resource.k8s.io/DeviceClass",
  "resource.k8s.io/ResourceSlice",
  "scheduling.k8s.io/PriorityClass",
  "storage.k8s.io/CSIDriver",
  "storage.k8s.io/CSINode",
  "storage.k8s.io/StorageClass",
  "storage.k8s.io/VolumeAttachment",
  "storage.k8s.io/VolumeAttributesClass",
]);

const NAMESPACED: ReadonlySet<string> = new Set([
  "/Binding",
  "/ConfigMap",
  "/Endpoints",
  "/Event",
  "/LimitRange",
  "/PersistentVolumeClaim",
  "/Pod",
  "/PodTemplate",
  "/ReplicationController",
  "/ResourceQuota",
  "/Secret",
  "/Service",
  "/ServiceAccount",
  "apps/ControllerRevision",
  "apps/DaemonSet",
  "apps/Deployment",
  "apps/ReplicaSet",
  "apps/StatefulSet",
  "authorization.k8s.io/LocalSubjectAccessReview",
  "autoscaling/HorizontalPodAutoscaler",
  "batch/CronJob",
  "batch/Job",
  "coordination.k8s.io/Lease",
  "discovery.k8s.io/EndpointSlice",
  "events.k8s.io/Event",
  "extensions/DaemonSet",
  "extensions/Deployment",
  "extensions/Ingress",
  "extensions/NetworkPolicy",
  "extensions/ReplicaSet",
  "networking.k8s.io/Ingress",
  "networking.k8s.io/NetworkPolicy",
  "policy/PodDisruptionBudget",
  "rbac.authorization.k8s.io/Role",
  "rbac.authorization.k8s.io/RoleBinding",
  "resource.k8s.io/ResourceClaim",
  "resource.k8s.io/ResourceClaimTemplate",
  "storage.k8s.io/CSIStorageCapacity",
]);

/**
 * true = namespace-scoped built-in, false = cluster-scoped built-in, undefined = not a
 * built-in Kubernetes type.
 */
export function builtinNamespaceScoped(group: string, kind: string): boolean | undefined {
  const key = `${group}/${kind}`;
  if (CLUSTER_SCOPED.has(key)) return false;
  if (NAMESPACED.has(key)) return true;
  return undefined;
}
