// A cached node build is reused only when it is whole and not degraded: a runc built without
// seccomp by an earlier version of hack/node/build.ts made every later deploy run fail with
// "seccomp not supported" until its binary was found and deleted by hand.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEGRADED_MARKER, needsBuild } from "../../../hack/node/build";
import { nodeBuilds } from "../../../hack/node/paths";

describe("needsBuild", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "node-build-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const runc = nodeBuilds.runc;

  it("builds what is absent and reuses a whole build", () => {
    expect(needsBuild(runc, dir)).toBe(true);
    writeFileSync(join(dir, "runc"), "");
    expect(needsBuild(runc, dir)).toBe(false);
  });

  it("rebuilds a runc an earlier version built without seccomp", () => {
    writeFileSync(join(dir, "runc"), "");
    writeFileSync(join(dir, DEGRADED_MARKER), "");
    expect(needsBuild(runc, dir)).toBe(true);
  });
});
