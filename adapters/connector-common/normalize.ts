// Shared by the connectors' payload normalizers (error tracker, metrics platform, cloud logs):
// reading untyped vendor JSON, the cap on an event's texts, and the frames of a stack text.
import type { StackFrame } from '../../core/contracts/index.js';

export type Obj = Record<string, unknown>;
/** The longest text (message, culprit, tag value, …) a normalized event keeps. */
export const MAX_TEXT = 8_000;

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A non-blank string (cut to `max`) or a number as text; undefined for anything else. */
export const str = (v: unknown, max = MAX_TEXT): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v.slice(0, max) : typeof v === 'number' ? String(v) : undefined;

const V8_FRAME = /^\s*at (?:(?:async )?(.+?) \()?(.+?):(\d+)(?::(\d+))?\)?\s*$/;
const PY_FRAME = /^\s*File "([^"]+)", line (\d+)(?:, in (.+))?\s*$/;

/** Frames of a stack text, crashing frame first; undefined when none is readable. */
export function framesOfStack(stack: string | undefined): StackFrame[] | undefined {
  if (!stack) return undefined;
  const frames: StackFrame[] = [];
  let python = false;
  for (const line of stack.split('\n').slice(0, 400)) {
    const v8 = V8_FRAME.exec(line);
    const py = v8 ? null : PY_FRAME.exec(line);
    if (!v8 && !py) continue;
    const file = (v8 ? v8[2] : py![1]).slice(0, 1000);
    if (!file || file === 'native' || file.startsWith('node:')) continue;
    const frame: StackFrame = { file };
    const fn = v8 ? v8[1] : py![3];
    if (fn) frame.function = fn.trim().slice(0, 300);
    frame.line = Number(v8 ? v8[3] : py![2]);
    if (v8?.[4]) frame.column = Number(v8[4]);
    frame.in_app = !/(^|[/\\])(node_modules|site-packages|dist-packages)[/\\]/.test(file);
    if (py) python = true;
    frames.push(frame);
    if (frames.length >= 200) break;
  }
  // Python prints the crashing frame last.
  if (python) frames.reverse();
  return frames.length ? frames : undefined;
}
