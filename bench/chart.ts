// A log-log line chart as a PNG, with no plotting library: an RGB pixel buffer, lines, points,
// a 5×7 bitmap font, and a PNG encoder (zlib from node:zlib plus CRC-32).
import { deflateSync } from "node:zlib";

export type Rgb = [number, number, number];

export interface Series {
  label: string;
  color: Rgb;
  dashed?: boolean;
  /** [x, y] with x, y > 0 (both axes are logarithmic). */
  points: [number, number][];
}

export interface ChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  width?: number;
  height?: number;
}

// ---- PNG encoding ----------------------------------------------------------------------------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** 8-bit RGB, every scanline with filter type 0 (none). */
export function encodePng(width: number, height: number, rgb: Uint8Array): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // bit depth 8, colour type 2 (RGB), deflate, no filter, no interlace
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++)
    raw.set(rgb.subarray(y * width * 3, (y + 1) * width * 3), y * (width * 3 + 1) + 1);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

// ---- drawing -----------------------------------------------------------------------------------

/** 5×7 glyphs, one byte per row (top first), bit 4 = leftmost pixel. Text is drawn uppercase. */
const FONT: Record<string, string> = {
  "0": "0e11131519110e",
  "1": "040c040404040e",
  "2": "0e11010204081f",
  "3": "1f02040201110e",
  "4": "02060a121f0202",
  "5": "1f101e0101110e",
  "6": "0608101e11110e",
  "7": "1f010204080808",
  "8": "0e11110e11110e",
  "9": "0e11110f01020c",
  A: "0e1111111f1111",
  B: "1e11111e11111e",
  C: "0e11101010110e",
  D: "1c12111111121c",
  E: "1f10101e10101f",
  F: "1f10101e101010",
  G: "0e11101711110f",
  H: "1111111f111111",
  I: "0e04040404040e",
  J: "0702020202120c",
  K: "11121418141211",
  L: "1010101010101f",
  M: "111b1515111111",
  N: "11111915131111",
  O: "0e11111111110e",
  P: "1e11111e101010",
  Q: "0e11111115120d",
  R: "1e11111e141211",
  S: "0f10100e01011e",
  T: "1f040404040404",
  U: "1111111111110e",
  V: "11111111110a04",
  W: "1111111515150a",
  X: "11110a040a1111",
  Y: "1111110a040404",
  Z: "1f01020408101f",
  ".": "00000000000c0c",
  "-": "0000001f000000",
  "/": "00010204081000",
  "(": "02040808080402",
  ")": "08040202020408",
  ":": "000c0c000c0c00",
  "=": "00001f001f0000",
  ",": "000000000c0408",
  "+": "0004041f040400",
  "÷": "0004001f000400",
  " ": "00000000000000",
};

export class Canvas {
  readonly pixels: Uint8Array;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.pixels = new Uint8Array(width * height * 3).fill(255);
  }

  set(x: number, y: number, color: Rgb): void {
    x = Math.round(x);
    y = Math.round(y);
    if (x < 0 || y < 0 || x >= this.width || y >= this.height) return;
    this.pixels.set(color, (y * this.width + x) * 3);
  }

  rect(x: number, y: number, w: number, h: number, color: Rgb): void {
    for (let dy = 0; dy < h; dy++) for (let dx = 0; dx < w; dx++) this.set(x + dx, y + dy, color);
  }

  /** A line `thickness` pixels wide; dashed lines draw 8 pixels of every 14. */
  line(x0: number, y0: number, x1: number, y1: number, color: Rgb, thickness = 1, dashed = false) {
    const length = Math.hypot(x1 - x0, y1 - y0);
    const half = Math.floor(thickness / 2);
    for (let i = 0; i <= length; i++) {
      if (dashed && i % 14 >= 8) continue;
      const t = length === 0 ? 0 : i / length;
      this.rect(x0 + (x1 - x0) * t - half, y0 + (y1 - y0) * t - half, thickness, thickness, color);
    }
  }

  disc(cx: number, cy: number, r: number, color: Rgb): void {
    for (let dy = -r; dy <= r; dy++)
      for (let dx = -r; dx <= r; dx++)
        if (dx * dx + dy * dy <= r * r) this.set(cx + dx, cy + dy, color);
  }

  /** Text at (x, y) = top left, `scale` pixels per font pixel; returns its width. */
  text(x: number, y: number, text: string, color: Rgb, scale = 2): number {
    for (const [i, ch] of [...text.toUpperCase()].entries()) {
      const rows = FONT[ch] ?? FONT[" "];
      for (let r = 0; r < 7; r++) {
        const bits = Number.parseInt(rows.slice(r * 2, r * 2 + 2), 16);
        for (let c = 0; c < 5; c++)
          if (bits & (16 >> c))
            this.rect(x + (i * 6 + c) * scale, y + r * scale, scale, scale, color);
      }
    }
    return textWidth(text, scale);
  }

  png(): Buffer {
    return encodePng(this.width, this.height, this.pixels);
  }
}

const textWidth = (text: string, scale: number) => [...text].length * 6 * scale;

// ---- the chart -----------------------------------------------------------------------------------

const INK: Rgb = [40, 40, 40];
const GRID: Rgb = [225, 225, 225];

const decades = (lo: number, hi: number) => {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) out.push(10 ** e);
  return out;
};

const tickLabel = (v: number) => (v >= 1 ? String(v) : v.toFixed(-Math.log10(v)));

export function renderChart(series: Series[], options: ChartOptions): Buffer {
  const { width = 900, height = 560 } = options;
  const canvas = new Canvas(width, height);
  const box = { left: 90, right: width - 50, top: 80, bottom: height - 70 };
  const points = series.flatMap(s => s.points);
  const xs = decades(Math.min(...points.map(p => p[0])), Math.max(...points.map(p => p[0])));
  const ys = decades(Math.min(...points.map(p => p[1])), Math.max(...points.map(p => p[1])));
  const scale = (v: number, lo: number, hi: number, a: number, b: number) =>
    a + ((Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * (b - a);
  const px = (x: number) => scale(x, xs[0], xs[xs.length - 1], box.left, box.right);
  const py = (y: number) => scale(y, ys[0], ys[ys.length - 1], box.bottom, box.top);

  canvas.text(10, 14, options.title, INK, 2);
  for (const y of ys) {
    canvas.line(box.left, py(y), box.right, py(y), GRID);
    const label = tickLabel(y);
    canvas.text(box.left - 10 - textWidth(label, 2), py(y) - 7, label, INK);
  }
  for (const x of xs) {
    canvas.line(px(x), box.top, px(x), box.bottom, GRID);
    canvas.text(px(x) - textWidth(String(x), 2) / 2, box.bottom + 10, String(x), INK);
  }
  canvas.line(box.left, box.bottom, box.right, box.bottom, INK, 2);
  canvas.line(box.left, box.top, box.left, box.bottom, INK, 2);
  canvas.text(
    (box.left + box.right - textWidth(options.xLabel, 2)) / 2,
    height - 30,
    options.xLabel,
    INK,
  );
  canvas.text(10, box.top - 34, options.yLabel, INK);

  for (const s of series) {
    const pts = [...s.points].sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < pts.length; i++)
      canvas.line(
        px(pts[i - 1][0]),
        py(pts[i - 1][1]),
        px(pts[i][0]),
        py(pts[i][1]),
        s.color,
        3,
        s.dashed,
      );
    for (const [x, y] of pts) canvas.disc(px(x), py(y), 5, s.color);
  }
  // Legend in the top-left corner of the plot area.
  series.forEach((s, i) => {
    const y = box.top + 12 + i * 24;
    canvas.line(box.left + 14, y + 7, box.left + 54, y + 7, s.color, 3, s.dashed);
    canvas.text(box.left + 64, y, s.label, INK);
  });
  return canvas.png();
}
