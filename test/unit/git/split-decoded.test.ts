import { splitDecoded } from "../../../lib/git/cli-client";

it("splits at the separator byte, skipping empty pieces", () => {
  const out = Buffer.from("100644 blob a\tx.yaml\x00\x00040000 tree b\tdir\x00");
  expect(splitDecoded(out, 0)).toEqual(["100644 blob a\tx.yaml", "040000 tree b\tdir"]);
  expect(splitDecoded(Buffer.alloc(0), 0)).toEqual([]);
});

it("decodes multi-byte UTF-8 paths whole", () => {
  const out = Buffer.from("r1\x1f名前\x1e\nr2\x1fé\x1e");
  expect(splitDecoded(out, 0x1e)).toEqual(["r1\x1f名前", "\nr2\x1fé"]);
});
