import { addHeadSymref } from "../../../lib/git/iso-http";

const pkt = (s: string) => `${(Buffer.byteLength(s) + 4).toString(16).padStart(4, "0")}${s}`;
const A = "a".repeat(40);
const B = "b".repeat(40);
const advertisement = (...refs: string[]) =>
  Buffer.from(
    `${pkt("# service=git-upload-pack\n")}0000${refs.map((r, i) => pkt(i === 0 ? `${r}\0multi_ack ofs-delta\n` : `${r}\n`)).join("")}0000`,
  );

describe("addHeadSymref", () => {
  it("names the configured branch as HEAD when the remote's HEAD is unborn", () => {
    const out = addHeadSymref(
      advertisement(`${A} refs/heads/deploy`, `${B} refs/heads/other`),
      "deploy",
    );
    expect(out.toString()).toBe(
      `${pkt("# service=git-upload-pack\n")}0000${pkt(`${A} refs/heads/deploy\0multi_ack ofs-delta symref=HEAD:refs/heads/deploy\n`)}${pkt(`${B} refs/heads/other\n`)}0000`,
    );
  });

  it("falls back to the first branch and leaves advertisements with a HEAD alone", () => {
    expect(addHeadSymref(advertisement(`${B} refs/heads/other`), "deploy").toString()).toContain(
      "symref=HEAD:refs/heads/other\n",
    );
    const withHead = advertisement(`${A} HEAD`, `${A} refs/heads/main`);
    expect(addHeadSymref(withHead, "main")).toEqual(withHead);
    const empty = Buffer.from(`${pkt("# service=git-upload-pack\n")}00000000`);
    expect(addHeadSymref(empty, "main")).toEqual(empty);
  });
});
