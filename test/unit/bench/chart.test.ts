import { crc32, inflateSync } from "node:zlib";
import { Canvas, encodePng, renderChart } from "../../../bench/chart";

/** The chunks of a PNG, each with its CRC checked by node:zlib's own crc32. */
function chunks(png: Buffer): { type: string; data: Buffer }[] {
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const out: { type: string; data: Buffer }[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const typeAndData = png.subarray(at + 4, at + 8 + length);
    expect(png.readUInt32BE(at + 8 + length)).toBe(crc32(typeAndData));
    out.push({ type: typeAndData.subarray(0, 4).toString("ascii"), data: typeAndData.subarray(4) });
    at += 12 + length;
  }
  return out;
}

/** The RGB pixels of one of our PNGs (filter type 0 on every line). */
function pixels(png: Buffer): { width: number; height: number; rgb: Buffer } {
  const parts = chunks(png);
  const header = parts.find(c => c.type === "IHDR")!.data;
  const [width, height] = [header.readUInt32BE(0), header.readUInt32BE(4)];
  const raw = inflateSync(Buffer.concat(parts.filter(c => c.type === "IDAT").map(c => c.data)));
  expect(raw.length).toBe((width * 3 + 1) * height);
  const rgb = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    expect(raw[y * (width * 3 + 1)]).toBe(0);
    raw.copy(rgb, y * width * 3, y * (width * 3 + 1) + 1, (y + 1) * (width * 3 + 1));
  }
  return { width, height, rgb };
}

describe("encodePng", () => {
  it("writes valid chunks (IHDR, IDAT, IEND) that decode to the pixels given", () => {
    const canvas = new Canvas(3, 2);
    canvas.set(0, 0, [255, 0, 0]);
    canvas.set(2, 1, [0, 0, 255]);
    const png = encodePng(3, 2, canvas.pixels);
    expect(chunks(png).map(c => c.type)).toEqual(["IHDR", "IDAT", "IEND"]);
    const { width, height, rgb } = pixels(png);
    expect([width, height]).toEqual([3, 2]);
    expect([...rgb.subarray(0, 3)]).toEqual([255, 0, 0]);
    expect([...rgb.subarray(15, 18)]).toEqual([0, 0, 255]);
    expect([...rgb.subarray(3, 6)]).toEqual([255, 255, 255]);
  });
});

describe("renderChart", () => {
  it("draws every series in its colour on a white background", () => {
    const red: [number, number, number] = [200, 60, 40];
    const blue: [number, number, number] = [40, 90, 200];
    const png = renderChart(
      [
        {
          label: "ours",
          color: red,
          points: [
            [10, 2],
            [100, 20],
          ],
        },
        {
          label: "floor",
          color: blue,
          dashed: true,
          points: [
            [10, 0.2],
            [100, 2],
          ],
        },
      ],
      { title: "t", xLabel: "n", yLabel: "s", width: 300, height: 200 },
    );
    const { rgb } = pixels(png);
    const count = (c: number[]) => {
      let n = 0;
      for (let i = 0; i < rgb.length; i += 3)
        if (rgb[i] === c[0] && rgb[i + 1] === c[1] && rgb[i + 2] === c[2]) n++;
      return n;
    };
    expect(count(red)).toBeGreaterThan(100);
    expect(count(blue)).toBeGreaterThan(100);
    expect(count([255, 255, 255])).toBeGreaterThan((300 * 200) / 2);
  });
});
