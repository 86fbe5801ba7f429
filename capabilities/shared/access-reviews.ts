import { fetch } from "kubernetes-fluent-client";
import { FetchMethods } from "kubernetes-fluent-client/dist/fluent/shared-types.js";
import { k8sCfg } from "kubernetes-fluent-client/dist/fluent/utils.js";
import type { RequestUser } from "../../lib/validation/requester";

/** POSTs a review object (these kinds are never stored) and returns its status. */
async function review<S>(path: string, body: object): Promise<S> {
  const { opts, serverUrl } = await k8sCfg(FetchMethods.POST);
  const url = new URL(path, serverUrl.toString());
  const headers = {
    ...(opts.headers as Record<string, string>),
    "Content-Type": "application/json",
  };
  const response = await fetch<{ status?: S }>(url, {
    ...opts,
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
  if (!response.ok) throw response;
  return (response.data.status ?? {}) as S;
}

let own: Promise<string> | undefined;

/**
 * The user name this process authenticates as (a SelfSubjectReview, which every authenticated
 * user may create). Remembered once known; a failure is retried on the next call, and until
 * then no request is taken for the operator's own.
 */
export function operatorUsername(): Promise<string> {
  own ??= review<{ userInfo?: { username?: string } }>(
    "/apis/authentication.k8s.io/v1/selfsubjectreviews",
    { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
  )
    .then(status => {
      const name = status.userInfo?.username;
      if (!name) throw new Error("SelfSubjectReview returned no user name");
      return name;
    })
    .catch(error => {
      own = undefined; // asked again next time, whichever step failed
      throw error;
    });
  return own;
}

/** Whether `user` may do `verb` on one object (a SubjectAccessReview, as the API server decides). */
export async function userMay(
  user: RequestUser,
  attributes: { verb: string; group: string; resource: string; namespace: string; name: string },
): Promise<{ allowed: boolean; reason?: string }> {
  const status = await review<{ allowed?: boolean; denied?: boolean; reason?: string }>(
    "/apis/authorization.k8s.io/v1/subjectaccessreviews",
    {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SubjectAccessReview",
      spec: {
        user: user.username,
        uid: user.uid,
        groups: user.groups,
        extra: user.extra,
        resourceAttributes: attributes,
      },
    },
  );
  return { allowed: status.allowed === true && status.denied !== true, reason: status.reason };
}
