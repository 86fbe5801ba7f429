import git from "isomorphic-git";
import { gitOwnLines } from "../../../lib/git/cli-client";
import { isoFailure } from "../../../lib/git/iso-client";

// What a failed network call may say: never the server's answer.
const BODY = "BODY-ami-id-i-0abc123";

describe("error text of failed git network calls", () => {
  it("keeps only git's own fatal:/error: lines from the CLI's stderr", () => {
    const stderr = [
      `remote: ${BODY}`,
      `remote: {"Code":"Success","Token":"${BODY}"}`,
      "fatal: repository 'http://127.0.0.1:1234/r.git/' not found",
      "error: RPC failed; HTTP 500 curl 22 The requested URL returned error: 500",
      "hint: something",
    ].join("\n");
    expect(gitOwnLines(stderr)).toBe(
      "fatal: repository 'http://127.0.0.1:1234/r.git/' not found; error: RPC failed; HTTP 500 curl 22 The requested URL returned error: 500",
    );
  });

  it("names isomorphic-git's HTTP and protocol errors by status or code only", () => {
    const { HttpError, SmartHttpError, ParseError, NotFoundError } = git.Errors;
    expect(isoFailure(new HttpError(404, `Not Found ${BODY}`, BODY))).toBe("HTTP 404");
    expect(isoFailure(new HttpError(302, "Found", BODY))).toBe(
      "HTTP 302: the server redirects elsewhere and redirects are not followed; use the final URL",
    );
    expect(isoFailure(new SmartHttpError(BODY, BODY))).toBe(
      "the server did not answer as a git smart HTTP server (SmartHttpError)",
    );
    expect(isoFailure(new ParseError("pkt-line", BODY))).toBe(
      "the server did not answer as a git smart HTTP server (ParseError)",
    );
    expect(isoFailure(new NotFoundError("refs/heads/main"))).toBe(
      "NotFoundError: Could not find refs/heads/main.",
    );
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), {
      code: "ECONNREFUSED",
      syscall: "connect",
    });
    expect(isoFailure(refused)).toBe("ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9");
    expect(isoFailure(Object.assign(new Error(BODY), { code: "SomethingNew" }))).toBe(
      "SomethingNew",
    );
  });
});
