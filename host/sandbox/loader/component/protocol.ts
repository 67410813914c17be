/**
 * What a worker needs to run a component guest: plain data plus compiled core modules, so it
 * crosses threads by structured clone like a core guest's Module.
 */
export interface ComponentCode {
  /** sha256 of the component and its memory cap: a worker keeps the first copy of `cores` it sees per id. */
  id: string;
  /** Content-addressed file holding jco's instantiation glue (ES module, sync instantiation). */
  gluePath: string;
  /** sha256 of the glue's bytes; the worker checks the file against it before importing. */
  glueSha256: string;
  /** Every core module of the component, compiled once at load with its memory capped, by the name the glue asks for. */
  cores: Record<string, WebAssembly.Module>;
  /** The versioned name of the exported handler interface, e.g. `sluice:hook/handler@1.0.0`. */
  handler: string;
}
