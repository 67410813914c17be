use crate::value::Value;

/// What a hook decided (abi/README.md §4), built with one constructor per outcome and
/// chainable modifiers. Which outcome a point allows is checked by the host
/// (OUTCOME_NOT_ALLOWED).
///
/// ```ignore
/// Outcome::patch_input().replace("/arguments/limit", Value::Int(100)).annotate("capped", Value::Bool(true))
/// ```
#[derive(Clone, Debug)]
pub struct Outcome {
    kind: &'static str,
    patch: Option<Vec<Value>>,
    code: Option<String>,
    reason: Option<String>,
    result: Option<Value>,
    content: Option<String>,
    hold: Option<String>,
    carry: Option<Value>,
    annotations: Option<Value>,
}

impl Outcome {
    fn new(kind: &'static str) -> Outcome {
        Outcome { kind, patch: None, code: None, reason: None, result: None, content: None, hold: None, carry: None, annotations: None }
    }
    /// Let the operation proceed unchanged.
    pub fn continue_() -> Outcome { Outcome::new("continue") }
    /// Change the operation's input (before points); add operations with replace/add/remove.
    pub fn patch_input() -> Outcome { let mut o = Outcome::new("patch_input"); o.patch = Some(Vec::new()); o }
    /// Change the operation's output (after points).
    pub fn patch_output() -> Outcome { let mut o = Outcome::new("patch_output"); o.patch = Some(Vec::new()); o }
    /// Refuse the operation. `code` matches `[a-z0-9_.-]{1,64}`; `reason` is at most 1024 bytes.
    pub fn reject(code: &str, reason: &str) -> Outcome { Outcome::new("reject").with_code_reason(code, reason) }
    /// Serve `result` instead of running the operation (before points that allow it).
    pub fn short_circuit(result: Value) -> Outcome { let mut o = Outcome::new("short_circuit"); o.result = Some(result); o }
    /// Emit `content` instead of the chunk's or output's text.
    pub fn redact(content: &str) -> Outcome { let mut o = Outcome::new("redact"); o.content = Some(String::from(content)); o }
    /// Ask for someone's approval before the operation runs (ABI 1.2, tool.before): the host
    /// does not run it and ends it with HOOK_ASKED; a coding agent asks its user where it can.
    /// `reason` (at most 1024 bytes) says what needs approving.
    pub fn ask(reason: &str) -> Outcome { let mut o = Outcome::new("ask"); o.reason = Some(String::from(reason)); o }
    /// `ask` with a stable machine code (`[a-z0-9_.-]{1,64}`, as for reject), which the host
    /// reports as `hookCode` in HOOK_ASKED's details.
    pub fn ask_with_code(code: &str, reason: &str) -> Outcome { Outcome::new("ask").with_code_reason(code, reason) }
    /// Stop the output. Same code and reason rules as reject.
    pub fn block(code: &str, reason: &str) -> Outcome { Outcome::new("block").with_code_reason(code, reason) }

    fn with_code_reason(mut self, code: &str, reason: &str) -> Outcome {
        self.code = Some(String::from(code));
        self.reason = Some(String::from(reason));
        self
    }

    /// JSON Patch `replace` at a JSON Pointer rooted at the payload, e.g. "/arguments/limit".
    pub fn replace(self, path: &str, value: Value) -> Outcome { self.op("replace", path, Some(value)) }
    /// JSON Patch `add`; "/-" appends to an array.
    pub fn add(self, path: &str, value: Value) -> Outcome { self.op("add", path, Some(value)) }
    /// JSON Patch `remove`.
    pub fn remove(self, path: &str) -> Outcome { self.op("remove", path, None) }

    /// At `model.chat.chunk`: a suffix of the chunk held back and prepended to the next chunk.
    pub fn hold(mut self, text: &str) -> Outcome { self.hold = Some(String::from(text)); self }
    /// A small value (at most 4 KiB encoded) handed to the paired chunk and after hooks.
    pub fn with_carry(mut self, value: Value) -> Outcome { self.carry = Some(value); self }
    /// A value the host records with the operation (all annotations at most 4 KiB encoded).
    pub fn annotate(mut self, key: &str, value: Value) -> Outcome {
        self.annotations.get_or_insert_with(Value::map).insert(key, value);
        self
    }

    /// The outcome's name as the ABI spells it, e.g. "patch_input".
    pub fn kind(&self) -> &'static str { self.kind }

    /// The reply map, keys in the spec's order with `result` last.
    pub fn to_value(self) -> Value {
        self.reply(crate::ABI)
    }

    /// The reply of a guest whose marker says `abi` ("1.0", "1.1" or "1.2").
    pub(crate) fn reply(self, abi: &str) -> Value {
        let mut m = Value::map().set("abi", Value::str(abi)).set("outcome", Value::str(self.kind));
        if let Some(ops) = self.patch { m.insert("patch", Value::Array(ops)); }
        if let Some(c) = self.code { m.insert("code", Value::Str(c)); }
        if let Some(r) = self.reason { m.insert("reason", Value::Str(r)); }
        if let Some(c) = self.content { m.insert("content", Value::Str(c)); }
        if let Some(h) = self.hold { m.insert("hold", Value::Str(h)); }
        if let Some(c) = self.carry { m.insert("carry", c); }
        if let Some(a) = self.annotations { m.insert("annotations", a); }
        if let Some(r) = self.result { m.insert("result", r); }
        m
    }

    fn op(mut self, name: &str, path: &str, value: Option<Value>) -> Outcome {
        let mut op = Value::map().set("op", Value::str(name)).set("path", Value::str(path));
        if let Some(v) = value { op.insert("value", v); }
        match &mut self.patch {
            Some(ops) => ops.push(op),
            None => crate::host::fatal("sluice: replace/add/remove need Outcome::patch_input() or Outcome::patch_output()"),
        }
        self
    }
}
