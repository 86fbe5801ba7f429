import { addHeadSymref, keepRefs } from "../../../lib/git/iso-http";

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

describe("keepRefs", () => {
  it("keeps HEAD and the refs asked for, a kept tag's peeled line, the capabilities up front", () => {
    const adv = advertisement(
      `${A} HEAD`,
      `${A} refs/heads/main`,
      `${B} refs/heads/other`,
      `${B} refs/tags/t/v1`,
      `${A} refs/tags/t/v1^{}`,
      `${A} refs/tags/t/v2`,
    );
    const other = (ref: string) => ref === "refs/heads/other" || ref === "refs/tags/t/v1";
    expect(keepRefs(adv, other).toString()).toBe(
      `${pkt("# service=git-upload-pack\n")}0000${pkt(`${A} HEAD\0multi_ack ofs-delta\n`)}${pkt(`${B} refs/heads/other\n`)}${pkt(`${B} refs/tags/t/v1\n`)}${pkt(`${A} refs/tags/t/v1^{}\n`)}0000`,
    );
    const noHead = advertisement(`${A} refs/heads/main`, `${B} refs/heads/other`);
    expect(keepRefs(noHead, r => r === "refs/heads/other").toString()).toContain(
      pkt(`${B} refs/heads/other\0multi_ack ofs-delta\n`),
    );
    const garbage = Buffer.from("zzzz");
    expect(keepRefs(garbage, () => false)).toEqual(garbage);
  });
});

describe("keepRefs on a name that is not UTF-8", () => {
  it("keeps the line's bytes exactly", () => {
    const name = Buffer.concat([Buffer.from("refs/tags/t"), Buffer.from([0xff, 0xfe])]);
    const line = Buffer.concat([Buffer.from(`${B} `), name, Buffer.from("\n")]);
    const framed = Buffer.concat([
      Buffer.from((line.length + 4).toString(16).padStart(4, "0")),
      line,
    ]);
    const adv = Buffer.concat([
      advertisement(`${A} HEAD`).subarray(0, -4), // without its final flush
      framed,
      Buffer.from("0000"),
    ]);
    const kept = keepRefs(adv, ref => ref.startsWith("refs/tags/t"));
    expect(kept.includes(framed)).toBe(true);
  });
});
