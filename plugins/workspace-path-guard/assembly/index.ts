// workspace-path-guard: refuses a tool call whose file-path arguments could reach outside
// the workspace (code path.outside_workspace). Checked, for each configured argument name
// holding a string (or an array of strings):
//   - NUL and other control characters, backslashes;
//   - percent-encoded path syntax: any %XX escape that decodes to ".", "/", "\", "%" (so
//     double encoding such as %252e is caught) or a control character;
//   - Unicode look-alikes that compatibility normalisation turns into "." "/" or "\"
//     (fullwidth, one-dot leader, division and fraction slashes, small full stop ...);
//   - a leading "~" (home expansion) or a Windows drive ("C:");
//   - after resolving "." and ".." lexically against the workspace (a relative path is
//     taken relative to it), the result must be the workspace or lie under it.
// Symbolic links are not resolved: the guest has no filesystem; the tool must not follow
// links out of the workspace.
import { registerHook, Outcome, Value, ToolBefore } from "@sluice/guest-sdk";
export * from "@sluice/guest-sdk/exports";

const CODE = "path.outside_workspace";

function hexVal(c: i32): i32 {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 32;
  if (l >= 97 && l <= 102) return l - 87;
  return -1;
}

function isLookalike(c: i32): bool {
  return c == 0xff0e || c == 0xff0f || c == 0xff3c || c == 0x2024 || c == 0x2025 || c == 0x2026 || c == 0xfe52
    || c == 0x2215 || c == 0x2044 || c == 0xfe68 || c == 0x29f8 || c == 0x29f9 || c == 0x3002 || c == 0xff61;
}

/** Why `p` is refused before it is resolved, or "". */
function syntaxProblem(p: string): string {
  const n = p.length;
  for (let i = 0; i < n; i++) {
    const c = <i32>p.charCodeAt(i);
    if (c == 0) return "contains a NUL byte";
    if (c < 32 || c == 127) return "contains a control character";
    if (c == 92) return "contains a backslash";
    if (isLookalike(c)) return "contains a Unicode look-alike of a path separator or dot";
    if (c == 37 && i + 2 < n) {
      const hi = hexVal(p.charCodeAt(i + 1));
      const lo = hexVal(p.charCodeAt(i + 2));
      if (hi >= 0 && lo >= 0) {
        const b = hi * 16 + lo;
        if (b == 46 || b == 47 || b == 92 || b == 37 || b < 32 || b == 127) return "contains percent-encoded path syntax (%" + p.substr(i + 1, 2) + ")";
        if (b >= 0x80) return "contains percent-encoded non-ASCII bytes";
      }
    }
  }
  if (n > 0 && p.charCodeAt(0) == 126) return "starts with ~";
  if (n >= 2 && p.charCodeAt(1) == 58 && ((p.charCodeAt(0) | 32) >= 97 && (p.charCodeAt(0) | 32) <= 122)) return "names a drive";
  return "";
}

/** Lexically resolves `segments` onto `stack`; returns false when ".." climbs above the root. */
function resolveInto(stack: string[], path: string, floor: i32): bool {
  const parts = path.split("/");
  for (let i = 0; i < parts.length; i++) {
    const s = parts[i];
    if (s.length == 0 || s == ".") continue;
    if (s == "..") {
      if (stack.length <= floor) return false;
      stack.pop();
      continue;
    }
    stack.push(s);
  }
  return true;
}

/** Why `p` escapes `root` (segments of the workspace), or "". */
function check(p: string, root: string[]): string {
  const problem = syntaxProblem(p);
  if (problem.length > 0) return problem;
  const stack: string[] = [];
  if (p.startsWith("/")) {
    if (!resolveInto(stack, p, 0)) return "climbs above the filesystem root";
  } else {
    for (let i = 0; i < root.length; i++) stack.push(root[i]);
    if (!resolveInto(stack, p, root.length)) return "climbs out of the workspace with ..";
  }
  if (stack.length < root.length) return "resolves outside the workspace";
  for (let i = 0; i < root.length; i++) if (stack[i] != root[i]) return "resolves outside the workspace";
  return "";
}

registerHook((req) => {
  const workspace = req.config.get("workspace").asString();
  const root: string[] = [];
  resolveInto(root, workspace, 0);
  const names = req.config.get("path_args");
  const argNames: string[] = [];
  if (names.isArray()) for (let i = 0; i < names.length; i++) argNames.push(names.at(i).asStringOr(""));
  else { argNames.push("path"); argNames.push("file"); argNames.push("filename"); }

  const args = ToolBefore.of(req).arguments;
  for (let a = 0; a < argNames.length; a++) {
    const name = argNames[a];
    const v = args.get(name);
    if (v.isString()) {
      const why = check(v.asString(), root);
      if (why.length > 0) return Outcome.reject(CODE, "argument \"" + name + "\" " + why).annotate("path_guard.argument", Value.str(name));
    } else if (v.isArray()) {
      for (let i = 0; i < v.length; i++) {
        const item = v.at(i);
        if (!item.isString()) continue;
        const why = check(item.asString(), root);
        if (why.length > 0) {
          return Outcome.reject(CODE, "argument \"" + name + "\"[" + i.toString() + "] " + why).annotate("path_guard.argument", Value.str(name));
        }
      }
    }
  }
  return Outcome.continue();
});
