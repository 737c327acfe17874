import { refuse } from './refusals.js';

/** A report's screenshot, as the ticket's attachment. */
export interface Screenshot {
  filename: string;
  contentType: string;
  content: Buffer;
}

const IMAGE_TYPES: Array<{ type: string; ext: string; test: (b: Buffer) => boolean }> = [
  { type: 'image/png', ext: 'png', test: (b) => b.length > 8 && b.readUInt32BE(0) === 0x89504e47 },
  { type: 'image/jpeg', ext: 'jpg', test: (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  {
    type: 'image/webp',
    ext: 'webp',
    test: (b) => b.length > 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP',
  },
];

/**
 * The screenshot of a report, from a data URL or bare base64: at most `maxBytes`, and a PNG, JPEG
 * or WebP by its leading bytes (422 invalid_screenshot, 413 payload_too_large).
 */
export function decodeScreenshot(value: string, maxBytes: number): Screenshot {
  const m = /^data:(image\/[a-z+.-]+);base64,(.*)$/is.exec(value.trim());
  const b64 = (m ? m[2] : value).replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(b64)) throw refuse(422, 'invalid_screenshot', 'screenshot_invalid');
  if (Math.floor((b64.length * 3) / 4) > maxBytes + 3)
    throw refuse(413, 'payload_too_large', 'screenshot_too_large', { max_bytes: maxBytes });
  const content = Buffer.from(b64, 'base64');
  if (content.length > maxBytes)
    throw refuse(413, 'payload_too_large', 'screenshot_too_large', { max_bytes: maxBytes });
  const kind = IMAGE_TYPES.find((t) => t.test(content));
  if (!kind) throw refuse(422, 'invalid_screenshot', 'screenshot_invalid');
  return { filename: `screenshot.${kind.ext}`, contentType: kind.type, content };
}
