/**
 * A POSIX ustar archive writer, enough for an export: regular files, names up to 100 bytes.
 * `tarEntry(name, data)` gives header + data + padding; `TAR_END` closes the archive.
 */
function header(name: string, size: number, mtime: Date): Buffer {
  const h = Buffer.alloc(512, 0);
  const put = (s: string, off: number, len: number) => h.write(s.slice(0, len), off, len, 'utf8');
  const octal = (n: number, len: number) => n.toString(8).padStart(len - 1, '0') + '\0';
  put(name, 0, 100);
  put(octal(0o644, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(Math.floor(mtime.getTime() / 1000), 12), 136, 12);
  h.fill(' ', 148, 156); // checksum counted as spaces
  put('0', 156, 1);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  let sum = 0;
  for (const b of h) sum += b;
  put(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8);
  return h;
}

export function tarEntry(name: string, data: Buffer, mtime = new Date()): Buffer {
  const pad = (512 - (data.length % 512)) % 512;
  return Buffer.concat([header(name, data.length, mtime), data, Buffer.alloc(pad, 0)]);
}

export const TAR_END = Buffer.alloc(1024, 0);
