/**
 * The regular-expression engine for author-written config schemas: RE2 (re2js, a pure
 * JavaScript port), which matches in time linear in the input. V8's backtracking engine
 * takes exponential time on patterns like `^(a+)+$`, and a config check runs on the main
 * thread, so one bad pattern would stall every hook and API call of the process.
 * Patterns RE2 cannot run in linear time (backreferences, lookaround) do not compile, so
 * the manifest that uses them is refused at upload.
 */
import { RE2JS } from "re2js";
import { charge } from "./validation-budget.js";

/** What Ajv needs of a regular expression (its `code.regExp` option). */
interface RegExpLike {
  test(text: string): boolean;
  toString(): string;
}

/** Ajv's `code.regExp` engine: `(pattern, flags) => { test }`. */
export function linearRegExp(pattern: string, _flags: string): RegExpLike {
  const compiled = RE2JS.compile(pattern);
  return {
    test: (text) => {
      // RE2 is linear, not free: a long string costs in proportion (validation-budget.ts).
      charge(1 + (text.length >> 4));
      return compiled.matcher(text).find();
    },
    // Ajv caches compiled patterns by this string: it must be the pattern itself.
    toString: () => `re2:${pattern}`,
  };
}
// Ajv emits this name in generated code only for standalone builds, which are not used here.
linearRegExp.code = "linearRegExp";
