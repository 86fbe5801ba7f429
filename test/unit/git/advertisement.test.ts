// The ref advertisement a push heard, read from git's packet trace, and whether it shows that
// only the pushed refs moved (then it serves as a fetch). The real pushes are in
// push-batch-server.test.ts.
import { advertisedInTrace, onlyPushedMoved } from "../../../lib/git/advertisement";
import type { RefMap } from "../../../lib/git/client";

const oid = (n: number) => n.toString(16).padStart(40, "0");
const line = (payload: string) =>
  `21:27:58.470328 pkt-line.c:80           packet:          git< ${payload}`;

describe("advertisedInTrace", () => {
  it("reads the first advertisement of an HTTP push's trace, up to its flush", () => {
    const trace = [
      line("# service=git-receive-pack"),
      line("0000"),
      line(`${oid(1)} refs/heads/main\\0report-status delete-refs side-band-64k atomic`),
      line(`${oid(2)} refs/tags/p/v1`),
      line("0000"),
      line("HEAD:refs/heads/x"),
      line(`${oid(9)} refs/heads/other`),
      line("0000"),
      `21:27:58.492248 pkt-line.c:80           packet:         push> ${oid(0)} ${oid(3)} refs/heads/x`,
    ].join("\n");
    expect(advertisedInTrace(trace)).toEqual(
      new Map([
        ["refs/heads/main", oid(1)],
        ["refs/tags/p/v1", oid(2)],
      ]),
    );
  });

  it("reads a local push's (push<), and an empty repository's as no refs", () => {
    const local = line(`${oid(1)} refs/heads/main\\0atomic`).replace("git<", "push<");
    expect(advertisedInTrace(`${local}\n${line("0000").replace("git<", "push<")}`)).toEqual(
      new Map([["refs/heads/main", oid(1)]]),
    );
    const empty = [line(`${oid(0)} capabilities^{}\\0report-status`), line("0000")].join("\n");
    expect(advertisedInTrace(empty)).toEqual(new Map());
  });

  it("makes no claim from a trace cut short or without an advertisement", () => {
    expect(advertisedInTrace(line(`${oid(1)} refs/heads/main\\0atomic`))).toBeUndefined();
    expect(advertisedInTrace("")).toBeUndefined();
  });
});

describe("onlyPushedMoved", () => {
  const known: RefMap = new Map([
    ["refs/heads/main", { oid: oid(1), commit: oid(1) }],
    ["refs/tags/p/v1", { oid: oid(2), commit: oid(5) }],
  ]);

  it("holds when the remote had what we know, besides the refs the push moved", () => {
    const heard = new Map([
      ["refs/heads/main", oid(7)], // leased and moved by the push
      ["refs/tags/p/v1", oid(2)],
    ]);
    expect(onlyPushedMoved(known, heard, new Set(["refs/heads/main", "refs/heads/new"]))).toBe(
      true,
    );
  });

  it("fails for a ref moved, created or deleted by someone else", () => {
    const pushed = new Set(["refs/heads/main"]);
    const moved = new Map([
      ["refs/heads/main", oid(1)],
      ["refs/tags/p/v1", oid(3)],
    ]);
    expect(onlyPushedMoved(known, moved, pushed)).toBe(false);
    const created = new Map([...moved, ["refs/tags/p/v1", oid(2)], ["refs/heads/x", oid(4)]]);
    expect(onlyPushedMoved(known, created, pushed)).toBe(false);
    expect(onlyPushedMoved(known, new Map([["refs/heads/main", oid(1)]]), pushed)).toBe(false);
  });
});
