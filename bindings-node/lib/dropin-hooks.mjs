// The module-resolution hook of the zero-change mode, run in Node's loader thread (registered by
// register.mjs): an import of a TypeScript-SDK module resolves to oxmcp's mirror of it.
import { createRequire } from 'node:module';

const { mirrorOf } = createRequire(import.meta.url)('./dropin-table.cjs');

/** @type {(specifier: string, context: any, next: (s: string, c?: any) => any) => Promise<any>} */
export async function resolve(specifier, context, next) {
  const target = mirrorOf(specifier);
  if (!target) return next(specifier, context);
  // Resolved from inside oxmcp (a package may import itself by name), so it works whether or not
  // the server's own project lists oxmcp.
  return next(target, { ...context, parentURL: import.meta.url });
}
