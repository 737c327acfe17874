import { open } from 'node:fs/promises';

/** A line the agent (or its wrapper) prints on stdout to report its total spend so far, in USD. */
export const COST_LINE = /^::patchwell-cost\s+(\d+(?:\.\d+)?)\s*$/;

/** Most bytes read from the cost file per look (a wrapper writes a few bytes per report). */
const MAX_READ = 256 * 1024;

/**
 * The agent's reported spend. Two channels, both optional, both carrying the running total (not
 * increments): JSON lines `{"cost_usd": 0.42}` appended to the file named by PATCHWELL_COST_FILE,
 * and stdout lines `::patchwell-cost 0.42`. The total is the highest value reported on either (a
 * spend never goes down); malformed lines are counted and ignored.
 */
export class CostMeter {
  total = 0;
  ignored = 0;
  private offset = 0;
  private rest = '';

  constructor(readonly file: string) {}

  /** Takes a reported total; true when it was a valid one. */
  report(value: unknown): boolean {
    const n = typeof value === 'string' ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) {
      this.ignored++;
      return false;
    }
    if (n > this.total) this.total = n;
    return true;
  }

  /** A stdout line: true when it is a cost line (taken into the total). */
  stdoutLine(line: string): boolean {
    const m = COST_LINE.exec(line.trim());
    return m ? this.report(m[1]) : false;
  }

  /** Reads what was appended to the cost file since the last look (a file started over is read again). */
  async poll(): Promise<void> {
    let fh;
    try {
      fh = await open(this.file, 'r');
    } catch {
      return; // not written yet
    }
    try {
      const { size } = await fh.stat();
      if (size < this.offset) {
        this.offset = 0;
        this.rest = '';
      }
      while (this.offset < size) {
        const buf = Buffer.alloc(Math.min(MAX_READ, size - this.offset));
        const { bytesRead } = await fh.read(buf, 0, buf.length, this.offset);
        if (bytesRead === 0) break;
        this.offset += bytesRead;
        this.lines(buf.subarray(0, bytesRead).toString('utf8'));
      }
    } finally {
      await fh.close();
    }
  }

  private lines(text: string): void {
    const parts = (this.rest + text).split('\n');
    this.rest = (parts.pop() ?? '').slice(-4096);
    for (const line of parts) this.jsonLine(line);
  }

  /** The last line of the file may lack its newline when the agent has ended: take it too. */
  async finish(): Promise<void> {
    await this.poll();
    if (this.rest.trim()) this.jsonLine(this.rest);
    this.rest = '';
  }

  private jsonLine(line: string): void {
    if (!line.trim()) return;
    try {
      const v = JSON.parse(line) as { cost_usd?: unknown } | null;
      this.report(v && typeof v === 'object' ? v.cost_usd : undefined);
    } catch {
      this.ignored++;
    }
  }
}
