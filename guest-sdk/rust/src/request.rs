use crate::value::Value;

/// Who and what the invocation is about (abi/README.md §5). Information only. Absent
/// strings read as "" and absent integers as -1; `raw` keeps the map.
#[derive(Clone, Debug)]
pub struct Context {
    pub space_id: String,
    pub actor_id: String,
    pub run_id: String,
    pub instance_id: String,
    pub operation_id: String,
    pub parent_operation_id: String,
    pub call_id: String,
    pub point: String,
    /// `action`, `compaction`, `completion` or `embedding`.
    pub purpose: String,
    pub binding_id: String,
    pub published_revision: i64,
    /// Milliseconds since the Unix epoch. The guest has no clock.
    pub deadline: i64,
    pub raw: Value,
}

fn text(v: &Value, key: &str) -> String {
    String::from(v.get(key).as_str_or(""))
}

impl Context {
    pub fn new(raw: Value) -> Context {
        Context {
            space_id: text(&raw, "space_id"),
            actor_id: text(&raw, "actor_id"),
            run_id: text(&raw, "run_id"),
            instance_id: text(&raw, "instance_id"),
            operation_id: text(&raw, "operation_id"),
            parent_operation_id: text(&raw, "parent_operation_id"),
            call_id: text(&raw, "call_id"),
            point: text(&raw, "point"),
            purpose: text(&raw, "purpose"),
            binding_id: text(&raw, "binding_id"),
            published_revision: raw.get("published_revision").as_int_or(-1),
            deadline: raw.get("deadline").as_int_or(-1),
            raw,
        }
    }
}

/// One invocation's request (abi/README.md §4).
#[derive(Clone, Debug)]
pub struct Request {
    /// The ABI version the host speaks, e.g. "1.1".
    pub abi: String,
    /// The hook point, e.g. "tool.before".
    pub point: String,
    pub context: Context,
    /// The point's payload: only the fields the plugin was granted.
    pub payload: Value,
    /// The binding's configuration, validated by the host against the plugin's schema.
    pub config: Value,
    /// At an after or chunk point: what the paired before hook returned in `carry`; else Nil.
    pub carry: Value,
    /// The request's other keys, as a map: what a later ABI minor adds reaches the hook
    /// before this SDK names it (AssemblyScript's `raw`, without copying the payload).
    pub extra: Value,
}

impl Request {
    /// Splits the decoded request map into its parts (moving, not copying, the payload).
    pub fn new(root: Value) -> Request {
        let mut req = Request { abi: String::new(), point: String::new(), context: Context::new(Value::Nil), payload: Value::Nil, config: Value::Nil, carry: Value::Nil, extra: Value::map() };
        if let Value::Map(entries) = root {
            for (k, v) in entries {
                match k.as_str() {
                    "abi" => req.abi = String::from(v.as_str_or("")),
                    "point" => req.point = String::from(v.as_str_or("")),
                    "context" => req.context = Context::new(v),
                    "payload" => req.payload = v,
                    "config" => req.config = v,
                    "carry" => req.carry = v,
                    other => req.extra.insert(other, v),
                }
            }
        }
        req
    }
}
