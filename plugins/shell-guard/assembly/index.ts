// shell-guard: denies a shell command a coding agent is about to run when it
// - deletes recursively (rule recursive_delete): rm with -r, -R, -rf, --recursive, ...;
// - pipes a download into a shell (rule pipe_to_shell): curl or wget piped into sh, bash,
//   zsh, python, ..., or a shell running `$(curl ...)` / `<(curl ...)`;
// - sends a credential file out (rule credential_exfil): a command naming ~/.ssh, an id_rsa
//   key, a .env file, cloud credentials (.aws, gcloud, azure), .netrc, ... together with a
//   program that sends data over the network (curl, wget, nc, scp, rsync, ssh, ...).
// A command containing a configured `deny` pattern is denied (rule deny_pattern); one
// containing an `allow` pattern is let through unchecked. A command no rule denies that
// contains an `ask` pattern is answered ask (rule ask_pattern, ABI 1.2): the agent asks its
// user where it can, and denies it saying approval is needed where it cannot. The reason
// names shell-guard and the rule, and reaches the model through the agent's deny.
import { registerHook, Outcome, Value } from "@sluice/guest-sdk";
export * from "@sluice/guest-sdk/exports_v1_2";

const SHELLS: string[] = ["sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python3", "perl", "ruby", "node"];
const FETCHERS: string[] = ["curl", "wget"];
const SENDERS: string[] = ["curl", "wget", "nc", "ncat", "netcat", "socat", "scp", "sftp", "rsync", "ssh", "ftp", "telnet", "http", "https"];
const CREDENTIALS: string[] = [".ssh/", "~/.ssh", "id_rsa", "id_ed25519", "id_ecdsa", ".env", ".aws/credentials", ".aws/config", ".config/gcloud", "application_default_credentials", ".azure/", ".netrc", ".docker/config.json", ".kube/config", ".npmrc", ".pypirc", ".git-credentials"];
const PREFIXES: string[] = ["sudo", "command", "exec", "nohup", "time", "env", "xargs", "doas"];

function isSpace(c: i32): bool { return c == 32 || c == 9; }
function isSeparator(c: i32): bool { return c == 59 || c == 38 || c == 124 || c == 10 || c == 13 || c == 40 || c == 41 || c == 96; }

/** The words of one simple command (quotes removed, no expansion). */
function words(s: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quote: i32 = 0;
  let has = false;
  for (let i = 0; i < s.length; i++) {
    const c = <i32>s.charCodeAt(i);
    if (quote != 0) {
      if (c == quote) quote = 0; else cur += String.fromCharCode(c);
      continue;
    }
    if (c == 34 || c == 39) { quote = c; has = true; continue; }
    if (c == 92 && i + 1 < s.length) { cur += String.fromCharCode(<i32>s.charCodeAt(++i)); has = true; continue; }
    if (isSpace(c)) { if (has || cur.length > 0) out.push(cur); cur = ""; has = false; continue; }
    cur += String.fromCharCode(c);
  }
  if (has || cur.length > 0) out.push(cur);
  return out;
}

/**
 * The simple commands of a command line, split at ; & | newlines, parentheses and
 * backquotes (outside quotes), each with whether it is piped into from the one before.
 */
let pipedFrom: bool[] = [];
function commands(line: string): string[] {
  const out: string[] = [];
  pipedFrom = [];
  let start = 0;
  let quote: i32 = 0;
  let piped = false;
  for (let i = 0; i <= line.length; i++) {
    const c = i < line.length ? <i32>line.charCodeAt(i) : 10;
    // Inside double quotes $( still runs a command: its text is a command of its own.
    if (quote == 34 && c == 36 && i + 1 < line.length && line.charCodeAt(i + 1) == 40) quote = 0;
    if (quote != 0) { if (c == quote) quote = 0; continue; }
    if (c == 34 || c == 39) { quote = c; continue; }
    if (c == 36 && i + 1 < line.length && line.charCodeAt(i + 1) == 40) { // $( opens a command
      out.push(line.substring(start, i)); pipedFrom.push(piped); piped = false; start = i + 2; i++; continue;
    }
    if (c == 60 && i + 1 < line.length && line.charCodeAt(i + 1) == 40) { // <( opens a command
      out.push(line.substring(start, i)); pipedFrom.push(piped); piped = false; start = i + 2; i++; continue;
    }
    if (!isSeparator(c)) continue;
    out.push(line.substring(start, i));
    pipedFrom.push(piped);
    const pipe = c == 124 && !(i + 1 < line.length && line.charCodeAt(i + 1) == 124) && !(i > 0 && line.charCodeAt(i - 1) == 124);
    piped = pipe;
    start = i + 1;
  }
  return out;
}

function basename(w: string): string {
  const slash = w.lastIndexOf("/");
  return slash >= 0 ? w.substring(slash + 1) : w;
}

/** The program of a simple command and where its arguments start, past sudo, env assignments and the like. */
let argsFrom: i32 = 0;
function program(ws: string[]): string {
  let i = 0;
  while (i < ws.length) {
    const w = ws[i];
    const eq = w.indexOf("=");
    if (eq > 0 && !w.startsWith("-")) { i++; continue; }
    const b = basename(w);
    if (PREFIXES.includes(b)) { i++; while (i < ws.length && ws[i].startsWith("-")) i++; continue; }
    argsFrom = i + 1;
    return b;
  }
  argsFrom = ws.length;
  return "";
}

function isRecursiveRm(ws: string[]): bool {
  if (program(ws) != "rm") return false;
  for (let i = argsFrom; i < ws.length; i++) {
    const a = ws[i];
    if (a == "--") break;
    if (a == "--recursive" || a.startsWith("--recursive=")) return true;
    if (a.startsWith("-") && !a.startsWith("--") && (a.includes("r") || a.includes("R"))) return true;
  }
  return false;
}

function deny(rule: string, why: string): Outcome {
  return Outcome.reject("shell_guard." + rule, "shell-guard denied this command (rule " + rule + "): " + why)
    .annotate("shell_guard.rule", Value.str(rule));
}

function ask(i: i32, pattern: string): Outcome {
  return Outcome.ask("shell-guard asks for approval of this command (rule ask_pattern): it contains ask pattern " + i.toString() + " (\"" + pattern + "\")")
    .annotate("shell_guard.rule", Value.str("ask_pattern"));
}

/** The first configured ask pattern the command contains: a denial wins over it, so it is checked last. */
function asked(line: string, patterns: Value): Outcome {
  for (let i = 0; i < patterns.length; i++) {
    const p = patterns.at(i).asStringOr("");
    if (p.length > 0 && line.includes(p)) return ask(i, p);
  }
  return Outcome.continue();
}

registerHook((req) => {
  const args = req.payload.get("arguments");
  let cmd = args.get("command");
  if (!cmd.isString()) cmd = args.get("cmd");
  if (cmd.isArray()) {
    let joined = "";
    for (let i = 0; i < cmd.length; i++) joined += (i > 0 ? " " : "") + cmd.at(i).asStringOr("");
    cmd = Value.str(joined);
  }
  if (!cmd.isString()) return Outcome.continue();
  const line = cmd.asString();
  const cfg = req.config;

  const allow = cfg.get("allow");
  for (let i = 0; i < allow.length; i++) if (line.includes(allow.at(i).asStringOr("\u0000"))) return Outcome.continue().annotate("shell_guard.allowed", Value.int(i));
  const denyList = cfg.get("deny");
  for (let i = 0; i < denyList.length; i++) {
    const p = denyList.at(i).asStringOr("");
    if (p.length > 0 && line.includes(p)) return deny("deny_pattern", "it contains deny pattern " + i.toString() + " (\"" + p + "\")");
  }

  const rules = cfg.get("rules");
  let wantRm = true, wantPipe = true, wantExfil = true;
  if (rules.isArray()) {
    wantRm = false; wantPipe = false; wantExfil = false;
    for (let i = 0; i < rules.length; i++) {
      const r = rules.at(i).asStringOr("");
      if (r == "recursive_delete") wantRm = true;
      else if (r == "pipe_to_shell") wantPipe = true;
      else if (r == "credential_exfil") wantExfil = true;
    }
  }

  const parts = commands(line);
  let fetched = false;
  let sends = false;
  for (let i = 0; i < parts.length; i++) {
    const ws = words(parts[i]);
    if (ws.length == 0) continue;
    if (wantRm && isRecursiveRm(ws)) return deny("recursive_delete", "it deletes recursively (" + parts[i].trim() + ")");
    const p = program(ws);
    if (wantPipe && fetched && pipedFrom[i] && SHELLS.includes(p)) return deny("pipe_to_shell", "it pipes a download into " + p);
    if (wantPipe && SHELLS.includes(p) && i + 1 < parts.length) {
      const inner = words(parts[i + 1]);
      if (inner.length > 0 && FETCHERS.includes(program(inner)) && !pipedFrom[i + 1]) return deny("pipe_to_shell", "it runs a download with " + p);
    }
    if (FETCHERS.includes(p)) fetched = true; else if (!pipedFrom[i]) fetched = false;
    if (SENDERS.includes(p)) sends = true;
  }
  if (wantExfil && (sends || line.includes("/dev/tcp/") || line.includes("/dev/udp/"))) {
    for (let k = 0; k < CREDENTIALS.length; k++) {
      if (line.includes(CREDENTIALS[k])) return deny("credential_exfil", "it sends a credential file (" + CREDENTIALS[k] + ") over the network");
    }
  }
  return asked(line, cfg.get("ask"));
});
