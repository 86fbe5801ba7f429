// The Pod runtime's pure parts: the function Pod's manifest, the warm pool's plan, reading the
// Pod's status and the wrapper's answer. capabilities/shared/function-pods/ runs them.
export {
  DEFAULT_POD_RUNTIME_LIMITS,
  maxAnswerBytes,
  maxPodsFromEnv,
  type PodRuntimeLimits,
} from "./limits";
export {
  FUNCTION_POD_LABELS,
  IMAGE_HASH_LABEL,
  TEMPLATE_HASH_LABEL,
  WRAPPER_PORT,
  podFunctionProblems,
  podTemplate,
  type PodTemplate,
} from "./manifest";
export { observePod, podReadiness, type ObservedPod, type Readiness } from "./observe";
export {
  planAcquire,
  planIdle,
  planLost,
  planRelease,
  planRoom,
  planSync,
  type AcquireStep,
  type IdleStep,
  type LostStep,
  type PoolEntry,
  type ReadyPod,
  type ReleaseStep,
  type RoomStep,
  type ServingPod,
  type SyncStep,
  type SyncView,
} from "./pool";
export {
  failedRun,
  podFailure,
  podRunResponse,
  readCall,
  type CallReading,
  type PodFailureReason,
  type WrapperCall,
} from "./reply";
