/**
 * TypeScript blocks of the documentation, checked as a reader would use them: typechecked
 * strictly against the package's declarations (a file inside the repository resolves
 * `sluice/...` to dist/, as a consumer's does), and run by Node with their types stripped.
 */
import path from "node:path";
import ts from "typescript";

/** Every error a strict typecheck of these files reports, as `file: message`. */
export function typeErrors(files: readonly string[]): string[] {
  const program = ts.createProgram(files, {
    strict: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, types: ["node"],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? path.basename(d.file.fileName) : ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
}

/** The code with its types removed, as the ES module Node runs. */
export function stripTypes(source: string): string {
  return ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true } }).outputText;
}

/** Every ```ts block of a markdown text, in order. */
export function tsBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
}
