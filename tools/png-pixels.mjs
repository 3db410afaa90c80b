// Reads the pixels of an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium's screenshots are), with
// node:zlib for the compressed data and the five PNG row filters undone here. Enough to tell whether a
// screenshot shows anything; any other kind of PNG is refused by name.
import { inflateSync } from "node:zlib";

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function paeth(a, b, c) {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** `{ width, height, channels, pixels }`: pixels row by row, `channels` bytes each (3 RGB, 4 RGBA). */
export function decodePng(png) {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error("png: not a PNG file (bad signature)");
  let at = 8;
  let header = null;
  const data = [];
  while (at < png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString("latin1", at + 4, at + 8);
    const body = png.subarray(at + 8, at + 8 + length);
    if (type === "IHDR") header = { width: body.readUInt32BE(0), height: body.readUInt32BE(4), depth: body[8], colour: body[9], interlace: body[12] };
    else if (type === "IDAT") data.push(body);
    else if (type === "IEND") break;
    at += 12 + length;
  }
  if (header === null) throw new Error("png: no IHDR chunk");
  const { width, height, depth, colour, interlace } = header;
  if (depth !== 8 || (colour !== 2 && colour !== 6) || interlace !== 0) throw new Error(`png: only 8-bit non-interlaced RGB/RGBA is read (depth ${depth}, colour type ${colour}, interlace ${interlace})`);
  const channels = colour === 6 ? 4 : 3;
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  if (raw.length !== height * (stride + 1)) throw new Error(`png: ${raw.length} bytes of image data, expected ${height * (stride + 1)}`);
  const pixels = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const row = y * (stride + 1) + 1;
    for (let x = 0; x < stride; x++) {
      const left = x >= channels ? pixels[y * stride + x - channels] : 0;
      const up = y > 0 ? pixels[(y - 1) * stride + x] : 0;
      const upLeft = y > 0 && x >= channels ? pixels[(y - 1) * stride + x - channels] : 0;
      const value = raw[row + x];
      let out;
      if (filter === 0) out = value;
      else if (filter === 1) out = value + left;
      else if (filter === 2) out = value + up;
      else if (filter === 3) out = value + ((left + up) >> 1);
      else if (filter === 4) out = value + paeth(left, up, upLeft);
      else throw new Error(`png: unknown row filter ${filter} on row ${y}`);
      pixels[y * stride + x] = out & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

/**
 * What a screenshot shows: the share of pixels that differ from its top-left (background) pixel, how
 * many distinct colours it has, and how many pixels are exactly `rgb` (a colour the page paints).
 */
export function pixelStats(png, rgb) {
  const { width, height, channels, pixels } = decodePng(png);
  const total = width * height;
  const [r0, g0, b0] = [pixels[0], pixels[1], pixels[2]];
  let differing = 0;
  let exact = 0;
  const colours = new Set();
  for (let i = 0; i < total; i++) {
    const p = i * channels;
    const [r, g, b] = [pixels[p], pixels[p + 1], pixels[p + 2]];
    if (r !== r0 || g !== g0 || b !== b0) differing++;
    if (rgb !== undefined && r === rgb[0] && g === rgb[1] && b === rgb[2]) exact++;
    if (colours.size < 4096) colours.add((r << 16) | (g << 8) | b);
  }
  return { width, height, nonBackground: differing / total, colours: colours.size, exact };
}
