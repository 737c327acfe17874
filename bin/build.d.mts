/** Types of bin/build.mjs (plain JavaScript, run before anything compiles TypeScript). */
export declare function buildDist(root?: string): Promise<{ compiled: number; removed: number; ms: number }>;
