// Pure parts of the brand plugin: WCAG contrast against known pairs and the darkening of brand
// colors, the closed font list, and logo sniffing from the bytes.
import { deflateSync } from 'node:zlib';
import t from 'tap';
import { accessiblePrimary, contrastRatio, normalizeHex } from '../services/color.js';
import { FONT_FAMILIES } from '../services/fonts.js';
import { sniffImage } from '../services/image.js';
import { image } from './helpers.js';

t.test('contrast ratios of known pairs (WCAG 2.x)', (t) => {
  const ratio = (a: string, b: string) => Math.round(contrastRatio(a, b) * 100) / 100;
  t.equal(ratio('#000000', '#ffffff'), 21);
  t.equal(ratio('#ffffff', '#ffffff'), 1);
  t.equal(ratio('#767676', '#ffffff'), 4.54, 'the lightest grey that passes AA on white');
  t.equal(ratio('#777777', '#ffffff'), 4.48, 'one step lighter fails');
  t.equal(ratio('#0000ff', '#ffffff'), 8.59);
  t.equal(ratio('#ff0000', '#ffffff'), 4);
  t.equal(ratio('#ffffff', '#0000ff'), 8.59, 'order does not matter');
  t.equal(normalizeHex('#ABC'), '#aabbcc');
  t.equal(normalizeHex('red'), null);
  t.end();
});

t.test('a primary color is darkened only when white text on it fails AA', (t) => {
  t.same(accessiblePrimary('#2563eb'), { color: '#2563eb', adjusted: false });
  t.same(accessiblePrimary('#767676'), { color: '#767676', adjusted: false });
  t.same(accessiblePrimary('#777777'), { color: '#767676', adjusted: true }, 'the lightest passing shade');
  for (const c of ['#ff0000', '#ffcc00', '#ffffff', '#00ff00', '#87ceeb', '#f0f']) {
    const out = accessiblePrimary(c);
    t.equal(out.adjusted, true, `${c} is adjusted`);
    t.ok(contrastRatio(out.color, '#ffffff') >= 4.5, `${c} → ${out.color} passes`);
    t.ok(contrastRatio(out.color, '#ffffff') < 4.7, `${c} → ${out.color} is not darker than needed`);
  }
  const yellow = accessiblePrimary('#ffcc00').color;
  t.ok(
    parseInt(yellow.slice(1, 3), 16) > parseInt(yellow.slice(5, 7), 16),
    'the hue is kept (still a yellow, red > blue)',
  );
  t.end();
});

t.test('the font list is a closed set of 48 distinct families', (t) => {
  t.equal(FONT_FAMILIES.length, 48);
  t.equal(new Set(FONT_FAMILIES).size, 48);
  t.end();
});

function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    return Buffer.concat([len, Buffer.from(type, 'latin1'), data, Buffer.alloc(4)]); // CRC not checked by the sniffer
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.writeUInt8(8, 8);
  ihdr.writeUInt8(2, 9);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(height * (width * 3 + 1)))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

t.test('logos are recognised from their bytes, with their size', (t) => {
  t.same(sniffImage(image('python.png')), { contentType: 'image/png', width: 16, height: 16 });
  t.same(sniffImage(image('python.jpg')), { contentType: 'image/jpeg', width: 16, height: 16 });
  t.same(
    sniffImage(image('python.webp')),
    { contentType: 'image/webp', width: 16, height: 16 },
    'extended WebP (VP8X)',
  );
  t.same(sniffImage(png(320, 80)), { contentType: 'image/png', width: 320, height: 80 });
  // Lossless WebP (VP8L): 14-bit width-1 and height-1 after the 0x2f signature.
  const vp8l = Buffer.alloc(40);
  vp8l.write('RIFF', 0, 'latin1');
  vp8l.write('WEBP', 8, 'latin1');
  vp8l.write('VP8L', 12, 'latin1');
  vp8l[20] = 0x2f;
  vp8l.writeUInt32LE((200 - 1) | ((50 - 1) << 14), 21);
  t.same(sniffImage(vp8l), { contentType: 'image/webp', width: 200, height: 50 });
  // Lossy WebP (VP8): start code 9d 01 2a then 14-bit sizes.
  const vp8 = Buffer.alloc(40);
  vp8.write('RIFF', 0, 'latin1');
  vp8.write('WEBP', 8, 'latin1');
  vp8.write('VP8 ', 12, 'latin1');
  vp8.set([0x9d, 0x01, 0x2a], 23);
  vp8.writeUInt16LE(640, 26);
  vp8.writeUInt16LE(480, 28);
  t.same(sniffImage(vp8), { contentType: 'image/webp', width: 640, height: 480 });
  t.end();
});

t.test('other formats and damaged files are refused', (t) => {
  t.equal(sniffImage(image('python.gif')), null, 'GIF');
  t.equal(sniffImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), null, 'SVG');
  t.equal(sniffImage(image('python.png').subarray(0, 20)), null, 'a cut PNG');
  t.equal(sniffImage(image('python.jpg').subarray(0, 10)), null, 'a cut JPEG');
  t.equal(sniffImage(Buffer.alloc(0)), null);
  t.equal(sniffImage(png(0, 10)), null, 'zero width');
  t.end();
});
